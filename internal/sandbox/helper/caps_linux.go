package helper

import (
	"errors"
	"strconv"
	"syscall"
	"unsafe"
)

// prctl options and capability constants syscall does not define.
const (
	prCapAmbient         = 47 // PR_CAP_AMBIENT
	prCapAmbientClearAll = 4  // PR_CAP_AMBIENT_CLEAR_ALL
	prSetNoNewPrivs      = 38 // PR_SET_NO_NEW_PRIVS
	prSetChildSubreaper  = 36 // PR_SET_CHILD_SUBREAPER
	capVersion3          = 0x20080522
)

func prctl(option, arg2 uintptr) error {
	if _, _, e := syscall.RawSyscall6(syscall.SYS_PRCTL, option, arg2, 0, 0, 0, 0); e != 0 {
		return e
	}
	return nil
}

// capHeader and capData are capset's arguments (struct
// __user_cap_header_struct and two __user_cap_data_struct).
type capHeader struct {
	version uint32
	pid     int32
}

type capData struct{ effective, permitted, inheritable uint32 }

// dropCapabilities leaves the calling thread — the one that forks the
// command — no way to a capability, not even as uid 0 inside (it could
// otherwise undo the mounts): its ambient and bounding sets cleared, then
// its effective, permitted and inheritable sets emptied. All of it is per
// thread; the caller makes sure it is the right one.
func dropCapabilities() error {
	if err := prctl(prCapAmbient, prCapAmbientClearAll); err != nil {
		return errors.New("clear ambient: " + err.Error())
	}
	for c := uintptr(0); c <= 63; c++ {
		err := prctl(syscall.PR_CAPBSET_DROP, c)
		if err == syscall.EINVAL {
			break // past the last capability this kernel knows
		}
		if err != nil {
			return errors.New("drop bounding capability " + strconv.Itoa(int(c)) + ": " + err.Error())
		}
	}
	hdr := capHeader{version: capVersion3}
	var data [2]capData
	_, _, e := syscall.RawSyscall(syscall.SYS_CAPSET, uintptr(unsafe.Pointer(&hdr)), uintptr(unsafe.Pointer(&data[0])), 0)
	if e != 0 {
		return errors.New("capset: " + e.Error())
	}
	return nil
}

// noNewPrivs sets no_new_privs on the calling thread: set-user-ID
// programs gain nothing, and Landlock may be applied without privileges.
func noNewPrivs() error {
	if err := prctl(prSetNoNewPrivs, 1); err != nil {
		return errors.New("no_new_privs: " + err.Error())
	}
	return nil
}
