package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"syscall"
	"time"
	"unsafe"

	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
	"kernel.org/pub/linux/libs/security/libcap/psx"
)

// sysProcAttr starts the helper: in its own session (no controlling
// terminal, so no TIOCSTI into the user's), with a parent-death signal, and
// at LevelFull in new namespaces as the same user it runs as outside.
func sysProcAttr(s spec) *syscall.SysProcAttr {
	if s.Mode != modeNS {
		// SIGTERM, not SIGKILL: without a PID namespace only the helper
		// can end what the command left behind.
		return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	}
	uid, gid := os.Getuid(), os.Getgid()
	flags := syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	if !s.Network {
		flags |= syscall.CLONE_NEWNET
	}
	a := &syscall.SysProcAttr{
		Setsid:      true,
		Pdeathsig:   syscall.SIGKILL, // PID 1 dying takes the namespace with it
		Cloneflags:  uintptr(flags),
		UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
		GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
	}
	if uid != 0 {
		// A non-root user keeps the namespace's capabilities across the
		// helper's exec only as ambient ones; the helper drops them all.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN, unix.CAP_NET_ADMIN, unix.CAP_SETPCAP}
	}
	return a
}

// probeNamespaces runs the helper once with a small profile in new
// namespaces, through every set-up step, and reports the first failure.
func probeNamespaces(abi int) error {
	exe, err := os.Executable()
	if err != nil {
		return fmt.Errorf("cannot find own executable: %w", err)
	}
	tmp := os.TempDir()
	// Every step runs, masks included (over paths that exist everywhere;
	// the probe's mount namespace is its own).
	s := spec{Mode: modeNS, Writable: []string{tmp}, DenyRead: []string{tmp, exe},
		PrivateTmp: true, Probe: true, LandlockABI: abi}
	if abi > 0 {
		s.Landlock = s.Writable
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, helperArgs(s, nil)...)
	cmd.Dir, cmd.Env = "/", []string{} // not tmp: masked below
	cmd.SysProcAttr = sysProcAttr(s)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err == nil && !strings.Contains(stdout.String(), probeOK) {
		return errors.New(exe + " does not act as the sandbox helper (a test binary without sandbox.MaybeRunHelper in TestMain?)")
	}
	if err != nil {
		why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), helperPrefix))
		var ee *exec.ExitError
		if why == "" || !errors.As(err, &ee) {
			why = describeCloneError(err)
		}
		return errors.New(why)
	}
	return nil
}

// probeOK is what a probe helper prints once everything is set up.
const probeOK = "coder-sandbox-probe-ok"

func describeCloneError(err error) string {
	switch {
	case errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EACCES):
		return "user namespaces are not allowed for this user (" + err.Error() + "; see kernel.unprivileged_userns_clone or AppArmor's userns restriction)"
	case errors.Is(err, syscall.ENOSPC):
		return "user namespaces are disabled (user.max_user_namespaces is 0)"
	case errors.Is(err, syscall.EINVAL):
		return "the kernel does not support these namespaces (" + err.Error() + ")"
	}
	return err.Error()
}

// runNamespaced is the helper as PID 1 of the new namespaces: build the
// filesystem view, isolate the network, drop privileges, then run the
// command and stay its init.
func runNamespaced(s spec, argv []string) int {
	fail := func(step string, err error) int {
		fmt.Fprintf(os.Stderr, "%s%s: %v\n", helperPrefix, step, err)
		return helperFailed
	}
	// The bounding set is dropped on this thread, and the command forked
	// from it.
	runtime.LockOSThread()
	if os.Getpid() != 1 {
		return fail("namespaces", errors.New("the helper was not started in a new PID namespace (start it with the Cmd's SysProcAttr)"))
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
	if !s.Network {
		if err := loopbackUp(); err != nil {
			return fail("loopback", err)
		}
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
	} else if err := ll.AllThreadsPrctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fail("no_new_privs", err)
	}
	if s.Probe {
		fmt.Println(probeOK)
		return 0
	}
	return supervise(s, argv)
}

// loopbackUp brings up lo in the new network namespace.
func loopbackUp() error {
	fd, err := unix.Socket(unix.AF_INET, unix.SOCK_DGRAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	ifr, err := unix.NewIfreq("lo")
	if err != nil {
		return err
	}
	if err := unix.IoctlIfreq(fd, unix.SIOCGIFFLAGS, ifr); err != nil {
		return err
	}
	ifr.SetUint16(ifr.Uint16() | unix.IFF_UP | unix.IFF_RUNNING)
	return unix.IoctlIfreq(fd, unix.SIOCSIFFLAGS, ifr)
}

// capHeader and capData are capset's arguments. They live in static memory
// because capset runs on every thread (psx) while this goroutine waits, and
// Go may move a goroutine's stack.
var (
	capHeader = unix.CapUserHeader{Version: unix.LINUX_CAPABILITY_VERSION_3}
	capData   [2]unix.CapUserData
)

// dropCapabilities leaves the command no way to a capability, not even as
// uid 0 inside (it could otherwise undo the mounts): this thread, which
// forks the command (runtime.LockOSThread), clears its ambient and
// bounding sets, and every thread of the helper empties its effective,
// permitted and inheritable sets. The bounding set is per thread and takes
// one call per capability, so only the forking thread pays for it: the
// others never exec, and without permitted capabilities they cannot get
// any back.
func dropCapabilities() error {
	if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
		return fmt.Errorf("clear ambient: %w", err)
	}
	for c := 0; c <= 63; c++ {
		err := unix.Prctl(unix.PR_CAPBSET_DROP, uintptr(c), 0, 0, 0)
		if errors.Is(err, syscall.EINVAL) {
			break // past the last capability this kernel knows
		}
		if err != nil {
			return fmt.Errorf("drop bounding capability %d: %w", c, err)
		}
	}
	capData = [2]unix.CapUserData{}
	_, _, e := psx.Syscall3(unix.SYS_CAPSET, uintptr(unsafe.Pointer(&capHeader)), uintptr(unsafe.Pointer(&capData[0])), 0)
	if e != 0 {
		return fmt.Errorf("capset: %w", e)
	}
	return nil
}
