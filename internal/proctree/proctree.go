// Package proctree ends a command together with everything it started: a
// process group of its own on Unix, a Job Object on Windows. Callers start
// the command with Start and end the tree with Terminate or Kill; the
// parts that differ by platform stay in this package's platform files.
package proctree

import "os/exec"

// Tree is a started command and the processes it starts.
type Tree struct {
	cmd *exec.Cmd
	sys sysTree
}

// Start starts cmd as the root of a tree of its own. With session set it
// also leaves the controlling terminal (a new session on Unix). Set cmd's
// SysProcAttr through this package only: Start fills it.
func Start(cmd *exec.Cmd, session bool) (*Tree, error) {
	prepare(cmd, session)
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	t := &Tree{cmd: cmd}
	if err := t.attach(); err != nil {
		// A tree that cannot be contained is not started.
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return nil, err
	}
	return t, nil
}

// Pid is the root's process id.
func (t *Tree) Pid() int { return t.cmd.Process.Pid }
