package sandbox

import (
	"fmt"
	"os"
	"runtime"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// minABI: ABI 2 is the first that can allow renames between directories
// (the "refer" right); below it, best effort would drop enforcement
// altogether, so the sandbox counts as unsupported.
const minABI = 2

// writeRights are the rights the sandbox restricts. Reading, executing,
// device ioctls and unix sockets stay unrestricted: the sandbox confines
// writes, which is what plan mode and the workspace boundary need.
const writeRights = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir |
	ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
	ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym |
	ll.AccessFSRefer | ll.AccessFSTruncate)

// devFiles are always writable: writing them discards or prints data.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	"/dev/random", "/dev/urandom"}

// Supported reports whether commands can be sandboxed here, and why not.
func Supported() (bool, string) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil:
		return false, fmt.Sprintf("Landlock is not available in this kernel (%v)", err)
	case v < minABI:
		return false, fmt.Sprintf("Landlock ABI %d is too old (need %d, Linux 5.19+)", v, minABI)
	}
	return true, ""
}

// restrictAndExec confines this thread's writes and execs argv from the
// same thread, so the new program inherits the Landlock domain.
func restrictAndExec(writable []string, path string, argv []string) error {
	runtime.LockOSThread()
	rules := []landlock.Rule{
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").IgnoreIfMissing(),
	}
	for _, p := range writable {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue // a missing directory cannot be written anyway
		case fi.IsDir():
			rules = append(rules, landlock.RWDirs(p).WithRefer())
		default:
			rules = append(rules, landlock.RWFiles(p))
		}
	}
	cfg, err := landlock.NewConfig(writeRights)
	if err != nil {
		return err
	}
	if err := cfg.BestEffort().RestrictPaths(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return syscall.Exec(path, argv, os.Environ())
}
