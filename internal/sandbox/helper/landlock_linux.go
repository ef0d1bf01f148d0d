package helper

import (
	"errors"
	"os"
	"strconv"
	"syscall"
	"unsafe"
)

// Landlock's system calls (the same numbers on every architecture) and the
// constants of <linux/landlock.h> the helper uses.
const (
	sysLandlockCreateRuleset = 444
	sysLandlockAddRule       = 445
	sysLandlockRestrictSelf  = 446

	landlockCreateRulesetVersion = 1 << 0
	landlockRulePathBeneath      = 1

	accessFSWriteFile  = 1 << 1
	accessFSRemoveDir  = 1 << 4
	accessFSRemoveFile = 1 << 5
	accessFSMakeChar   = 1 << 6
	accessFSMakeDir    = 1 << 7
	accessFSMakeReg    = 1 << 8
	accessFSMakeSock   = 1 << 9
	accessFSMakeFifo   = 1 << 10
	accessFSMakeBlock  = 1 << 11
	accessFSMakeSym    = 1 << 12
	accessFSRefer      = 1 << 13 // ABI 2
	accessFSTruncate   = 1 << 14 // ABI 3

	accessNetBindTCP    = 1 << 0 // ABI 4
	accessNetConnectTCP = 1 << 1

	scopeAbstractUnixSocket = 1 << 0 // ABI 6
	scopeSignal             = 1 << 1
)

// writeRights are the filesystem rights Landlock restricts. Reading and
// executing stay unrestricted here: the mounts (LevelFull) hide what must
// not be read.
const writeRights = accessFSWriteFile | accessFSRemoveDir | accessFSRemoveFile | accessFSMakeChar |
	accessFSMakeDir | accessFSMakeReg | accessFSMakeSock | accessFSMakeFifo | accessFSMakeBlock |
	accessFSMakeSym | accessFSRefer | accessFSTruncate

// fileRights are those of writeRights that apply to a file (a rule on a
// file with a directory's rights is refused).
const fileRights = accessFSWriteFile | accessFSTruncate

// devFiles are always writable: writing them discards or prints data.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	"/dev/random", "/dev/urandom"}

// rulesetAttr is struct landlock_ruleset_attr (ABI 6's size; an older
// kernel accepts it with the fields it does not know left zero).
type rulesetAttr struct {
	handledAccessFS, handledAccessNet, scoped uint64
}

// pathBeneathAttr is struct landlock_path_beneath_attr, which is packed: 12
// bytes, the fd right after the access mask. Go lays the two fields out
// the same way and pads the struct to 16 bytes, which the kernel never
// reads.
type pathBeneathAttr struct {
	allowedAccess uint64
	parentFd      int32
}

// LandlockABI is the kernel's Landlock ABI version, or 0 and why not.
func LandlockABI() (int, string) {
	v, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, 0, 0, landlockCreateRulesetVersion)
	switch {
	case e != 0:
		return 0, "not available in this kernel (" + e.Error() + ")"
	case int(v) < MinABI:
		return 0, "ABI " + strconv.Itoa(int(v)) + " is too old (need " + strconv.Itoa(MinABI) + ", Linux 5.19+)"
	}
	return int(v), ""
}

// applyLandlock restricts the calling thread, and so everything it starts
// afterwards, best effort by ABI: renames between directories from ABI 2,
// truncation from 3, TCP bind and connect (when netOff) from 4, signals
// and abstract unix sockets kept inside from 6. It sets no_new_privs
// first, which Landlock needs without privileges.
func applyLandlock(s Spec, netOff bool) error {
	abi := s.LandlockABI
	attr := rulesetAttr{handledAccessFS: writeRights}
	if abi < 2 {
		attr.handledAccessFS &^= accessFSRefer
	}
	if abi < 3 {
		attr.handledAccessFS &^= accessFSTruncate
	}
	if abi >= 4 && netOff {
		attr.handledAccessNet = accessNetBindTCP | accessNetConnectTCP
	}
	if abi >= 6 {
		attr.scoped = scopeAbstractUnixSocket | scopeSignal
	}
	fd, _, e := syscall.RawSyscall(sysLandlockCreateRuleset, uintptr(unsafe.Pointer(&attr)), unsafe.Sizeof(attr), 0)
	if e != 0 {
		return errors.New("create ruleset: " + e.Error())
	}
	defer syscall.Close(int(fd))
	// The devices and the sandbox's own pseudo-terminals and shared
	// memory, without renames out of them; the writable paths, with.
	for _, p := range append(devFiles, "/dev/pts", "/dev/shm") {
		if err := allow(int(fd), p, attr.handledAccessFS&^accessFSRefer); err != nil {
			return err
		}
	}
	for _, p := range s.Landlock {
		if err := allow(int(fd), p, attr.handledAccessFS); err != nil {
			return err
		}
	}
	if err := noNewPrivs(); err != nil {
		return err
	}
	if _, _, e := syscall.RawSyscall(sysLandlockRestrictSelf, fd, 0, 0); e != 0 {
		return errors.New("restrict: " + e.Error())
	}
	return nil
}

// allow grants access below p (a directory) or, of it, what applies to p
// itself (any other file); a missing p is skipped, it cannot be written
// anyway.
func allow(ruleset int, p string, access uint64) error {
	fd, err := syscall.Open(p, oPath|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil
	}
	rule := pathBeneathAttr{allowedAccess: access, parentFd: int32(fd)}
	if st.Mode&syscall.S_IFMT != syscall.S_IFDIR {
		rule.allowedAccess &= fileRights
	}
	_, _, e := syscall.RawSyscall6(sysLandlockAddRule, uintptr(ruleset), landlockRulePathBeneath,
		uintptr(unsafe.Pointer(&rule)), 0, 0, 0)
	if e != 0 {
		return errors.New("allow " + p + ": " + e.Error())
	}
	return nil
}

// restrictAndExec is the last stage without namespaces: restrict this
// thread, then become the command. execve ends the helper's other threads
// and gives the program this thread's credentials and Landlock domain, so
// restricting this thread alone restricts the whole command.
func restrictAndExec(s Spec, argv []string) int {
	path, err := lookPath(argv[0])
	if err != nil {
		_, _ = os.Stderr.WriteString(Prefix + err.Error() + "\n")
		return 127
	}
	if s.LandlockABI > 0 {
		if err := applyLandlock(s, !s.Network); err != nil {
			return fail("landlock", err)
		}
	}
	err = syscall.Exec(path, argv, os.Environ())
	_, _ = os.Stderr.WriteString(Prefix + "exec " + argv[0] + ": " + err.Error() + "\n")
	return 126
}
