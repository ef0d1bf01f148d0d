//go:build linux

// Command nsfloor is the least a Go program pays to run a command in the
// namespaces coder's full sandbox level uses (user, mount, PID, IPC,
// network), as the same user: the runtime's start, one clone with the
// uid and gid maps, the command's exec, the namespaces' teardown. No
// mounts, no Landlock, no helper process, no configuration. coder-bench
// times `coder sandbox -- true` against it, so the report says how much of
// the sandbox's cost is set-up coder could still save and how much is
// this floor.
//
//	nsfloor /usr/bin/true
package main

import (
	"fmt"
	"os"
	"syscall"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: nsfloor /ABSOLUTE/PROGRAM [ARG...]")
		os.Exit(2)
	}
	uid, gid := os.Getuid(), os.Getgid()
	attr := &syscall.ProcAttr{
		Env:   os.Environ(),
		Files: []uintptr{0, 1, 2},
		Sys: &syscall.SysProcAttr{
			Setsid:    true,
			Pdeathsig: syscall.SIGKILL,
			Cloneflags: syscall.CLONE_NEWUSER | syscall.CLONE_NEWNS | syscall.CLONE_NEWPID |
				syscall.CLONE_NEWIPC | syscall.CLONE_NEWNET,
			UidMappings: []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}},
			GidMappings: []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}},
		},
	}
	pid, err := syscall.ForkExec(os.Args[1], os.Args[1:], attr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "nsfloor:", err)
		os.Exit(125)
	}
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "nsfloor:", err)
		os.Exit(125)
	}
	os.Exit(ws.ExitStatus())
}
