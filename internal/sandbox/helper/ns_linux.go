package helper

import (
	"errors"
	"os"
	"syscall"
	"unsafe"
)

const prSetDumpable = 4 // PR_SET_DUMPABLE

// runNamespaced is the helper as PID 1 of the new namespaces: build the
// filesystem view, isolate the network, drop privileges, then run the
// command and stay its init.
//
// Capabilities, no_new_privs and the Landlock domain belong to a thread,
// not a process, and without psx (or AllThreadsSyscall, which refuses when
// cgo is linked) Go cannot change other threads'. So every restricting
// step runs on this thread — the main one, to which the runtime keeps the
// main goroutine during package initialisation, where this runs — and the
// command is forked from it (syscall.ForkExec, from this goroutine): a
// child gets exactly its forking thread's credentials and domain. The
// helper's other runtime threads keep the namespace's capabilities, so
// before the command starts the helper makes itself non-dumpable: then
// ptrace, /proc/1/mem, /proc/1/environ, process_vm_writev and pidfd_getfd
// on it need CAP_SYS_PTRACE in its user namespace, which the command does
// not have; nothing else the command can do reaches those threads.
func runNamespaced(s Spec, argv []string) int {
	if os.Getpid() != 1 {
		return fail("namespaces", errors.New("the helper was not started in a new PID namespace (start it with the Cmd's SysProcAttr)"))
	}
	var net *network
	if !s.Network && NetworkInHelper {
		net = startNetwork() // alongside the mounts: netns_linux.go
	}
	var notified func() <-chan os.Signal
	if !s.Probe && !s.Serve {
		notified = notifyEnd() // alongside the mounts too
	}
	cwd, err := os.Getwd()
	if err != nil {
		return fail("working directory", err)
	}
	if err := setupMounts(s); err != nil {
		return fail("mounts", err)
	}
	// The old working directory still points into the mount below the
	// new binds: enter it again through them.
	if err := os.Chdir(cwd); err != nil {
		return fail("working directory", err)
	}
	if net != nil {
		if err := net.join(); err != nil {
			return fail("network", err)
		}
	} else if !s.Network {
		if err := loopbackUp(); err != nil {
			return fail("loopback", err)
		}
	}
	if err := prctl(prSetDumpable, 0); err != nil {
		return fail("dumpable", err)
	}
	if err := dropCapabilities(); err != nil {
		return fail("capabilities", err)
	}
	if s.LandlockABI > 0 {
		// The network namespace already isolates the network; Landlock
		// confines writes and keeps signals and sockets inside.
		if err := applyLandlock(s, false); err != nil {
			return fail("landlock", err)
		}
	} else if err := noNewPrivs(); err != nil {
		return fail("no_new_privs", err)
	}
	if net != nil {
		if err := net.loopback(); err != nil {
			return fail("loopback", err)
		}
	}
	if s.Probe {
		_, _ = os.Stdout.WriteString(ProbeOK + "\n")
		return 0
	}
	if s.Serve {
		return serve(s)
	}
	return supervise(s, argv, notified)
}

// ifreqFlags is struct ifreq as SIOCGIFFLAGS and SIOCSIFFLAGS use it: the
// interface's name, then its flags in the union (40 bytes in all).
type ifreqFlags struct {
	name  [syscall.IFNAMSIZ]byte
	flags uint16
	_     [22]byte
}

// loopbackUp brings up lo in the new network namespace.
func loopbackUp() error {
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_DGRAM|syscall.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	var ifr ifreqFlags
	copy(ifr.name[:], "lo")
	ioctl := func(req uintptr) error {
		if _, _, e := syscall.Syscall(syscall.SYS_IOCTL, uintptr(fd), req, uintptr(unsafe.Pointer(&ifr))); e != 0 {
			return e
		}
		return nil
	}
	if err := ioctl(syscall.SIOCGIFFLAGS); err != nil {
		return err
	}
	ifr.flags |= syscall.IFF_UP | syscall.IFF_RUNNING
	return ioctl(syscall.SIOCSIFFLAGS)
}
