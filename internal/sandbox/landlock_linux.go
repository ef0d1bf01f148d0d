package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// writeRights are the filesystem rights Landlock restricts. Reading and
// executing stay unrestricted here: the mounts (LevelFull) hide what must
// not be read.
const writeRights = landlock.AccessFSSet(ll.AccessFSWriteFile | ll.AccessFSRemoveDir |
	ll.AccessFSRemoveFile | ll.AccessFSMakeChar | ll.AccessFSMakeDir | ll.AccessFSMakeReg |
	ll.AccessFSMakeSock | ll.AccessFSMakeFifo | ll.AccessFSMakeBlock | ll.AccessFSMakeSym |
	ll.AccessFSRefer | ll.AccessFSTruncate)

// devFiles are always writable: writing them discards or prints data.
var devFiles = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx",
	"/dev/random", "/dev/urandom"}

// landlockABI is the kernel's Landlock ABI version, or 0 and why not.
func landlockABI() (int, string) {
	v, err := ll.LandlockGetABIVersion()
	switch {
	case err != nil:
		return 0, fmt.Sprintf("not available in this kernel (%v)", err)
	case v < minABI:
		return 0, fmt.Sprintf("ABI %d is too old (need %d, Linux 5.19+)", v, minABI)
	}
	return v, ""
}

// applyLandlock restricts every thread of this process, and so everything
// it starts afterwards. It sets no_new_privs too. With netOff and ABI 4+,
// TCP connect and bind are denied outright.
func applyLandlock(s spec, netOff bool) error {
	rules := []landlock.Rule{
		landlock.RWFiles(devFiles...).IgnoreIfMissing(),
		landlock.RWDirs("/dev/pts", "/dev/shm").IgnoreIfMissing(),
	}
	for _, p := range s.Landlock {
		fi, err := os.Stat(p)
		switch {
		case err != nil:
			continue // a missing path cannot be written anyway
		case fi.IsDir():
			rules = append(rules, landlock.RWDirs(p).WithRefer())
		default:
			rules = append(rules, landlock.RWFiles(p))
		}
	}
	args := []any{writeRights,
		// Signals and abstract unix sockets stay within the sandbox (ABI 6).
		landlock.ScopedSet(ll.ScopeSignal | ll.ScopeAbstractUnixSocket)}
	if netOff {
		args = append(args, landlock.AccessNetSet(ll.AccessNetBindTCP|ll.AccessNetConnectTCP))
	}
	cfg, err := landlock.NewConfig(args...)
	if err != nil {
		return err
	}
	if err := cfg.BestEffort().Restrict(rules...); err != nil {
		return fmt.Errorf("landlock: %w", err)
	}
	return nil
}

// restrictAndExec is the last stage without namespaces: restrict this
// process, then become the command.
func restrictAndExec(s spec, argv []string) int {
	path, err := exec.LookPath(argv[0])
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s%v\n", helperPrefix, err)
		return 127
	}
	if s.LandlockABI > 0 {
		if err := applyLandlock(s, !s.Network); err != nil {
			fmt.Fprintf(os.Stderr, "%s%v\n", helperPrefix, err)
			return helperFailed
		}
	}
	err = syscall.Exec(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "%sexec %s: %v\n", helperPrefix, argv[0], err)
	return 126
}
