package sandbox

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// sysProcAttr starts the helper: in its own session (no controlling
// terminal, so no TIOCSTI into the user's), with a parent-death signal, and
// at LevelFull in new namespaces as the same user it runs as outside.
func sysProcAttr(s helper.Spec) *syscall.SysProcAttr {
	if s.Mode != helper.ModeNS {
		// SIGTERM, not SIGKILL: without a PID namespace only the helper
		// can end what the command left behind.
		return &syscall.SysProcAttr{Setsid: true, Pdeathsig: syscall.SIGTERM}
	}
	uid, gid := os.Getuid(), os.Getgid()
	flags := syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID | syscall.CLONE_NEWIPC
	if !s.Network && !helper.NetworkInHelper {
		flags |= syscall.CLONE_NEWNET // else the helper makes it, off this path
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
	s := helper.Spec{Mode: helper.ModeNS, Writable: []string{tmp}, DenyRead: []string{tmp, exe},
		PrivateTmp: true, Probe: true, LandlockABI: abi}
	if abi > 0 {
		s.Landlock = s.Writable
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, exe, helper.Args(s, nil)...)
	cmd.Dir, cmd.Env = "/", []string{} // not tmp: masked below
	cmd.SysProcAttr = sysProcAttr(s)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err = cmd.Run()
	if err == nil && !strings.Contains(stdout.String(), helper.ProbeOK) {
		return errors.New(exe + " does not act as the sandbox helper (a binary that does not link package sandbox/helper?)")
	}
	if err != nil {
		why := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(stderr.String()), helper.Prefix))
		var ee *exec.ExitError
		if why == "" || !errors.As(err, &ee) {
			why = describeCloneError(err)
		}
		return errors.New(why)
	}
	return nil
}

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
