package sandbox

import (
	"io"
	"os"
	"os/exec"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// outputs copies a sandboxed command's stdout and stderr from pipes to
// their writers, as exec.Cmd does for a writer that is not a file, but
// under coder's control: the sandbox's end can then be taken from the
// helper's word (a kept sandbox's answer, a one-command helper's status)
// rather than from its process's exit.
type outputs struct {
	copies  sync.WaitGroup
	reads   []*os.File
	drained sync.Once
}

// copy copies r to w (nowhere when w is nil) until r's end.
func (o *outputs) copy(w io.Writer, r *os.File) {
	if w == nil {
		w = io.Discard
	}
	o.reads = append(o.reads, r)
	o.copies.Add(1)
	go func() {
		defer o.copies.Done()
		_, _ = io.Copy(w, r)
	}()
}

// drain waits until every copy has read to the end, which comes once every
// process holding a write end is gone, unless one was passed out of the
// sandbox: within the bound exec.Cmd's WaitDelay gives, then the pipes are
// closed under the copies. Done once; a later call waits for that one.
func (o *outputs) drain() {
	o.drained.Do(func() {
		done := make(chan struct{})
		go func() { o.copies.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(3 * helper.StopGrace):
			o.close()
			<-done
		}
		o.close()
	})
}

func (o *outputs) close() {
	for _, r := range o.reads {
		r.Close()
	}
}

// own gives cmd a pipe for each of its stdout and stderr that is a writer
// but not a file (one pipe for both when they are the same writer, as exec
// does), copied through o; the returned write ends are the child's, to be
// closed once it has started.
func (o *outputs) own(cmd *exec.Cmd) ([]*os.File, error) {
	var child []*os.File
	pipe := func(w io.Writer) (*os.File, error) {
		r, wr, err := os.Pipe()
		if err != nil {
			return nil, err
		}
		o.copy(w, r)
		child = append(child, wr)
		return wr, nil
	}
	sameWriter := cmd.Stderr != nil && interfaceEqual(cmd.Stderr, cmd.Stdout)
	if w := cmd.Stdout; w != nil && !isFile(w) {
		f, err := pipe(w)
		if err != nil {
			return child, err
		}
		cmd.Stdout = f
		if sameWriter {
			cmd.Stderr = f
		}
	}
	if w := cmd.Stderr; w != nil && !isFile(w) {
		f, err := pipe(w)
		if err != nil {
			return child, err
		}
		cmd.Stderr = f
	}
	return child, nil
}

func isFile(w io.Writer) bool {
	_, ok := w.(*os.File)
	return ok
}

// interfaceEqual is a == b without the panic on incomparable types.
func interfaceEqual(a, b any) (eq bool) {
	defer func() {
		if recover() != nil {
			eq = false
		}
	}()
	return a == b
}
