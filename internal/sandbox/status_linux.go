package sandbox

import (
	"os"
	"os/exec"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// statusPipe is where a one-command helper in new namespaces reports the
// command's code (helper.Spec.Status): the sandbox has ended when that
// comes, before the helper's own exit has torn its namespaces down.
type statusPipe struct{ r, w *os.File }

// withStatus asks for that report when cmd is such a helper (Command's at
// LevelFull), giving it the pipe's write end as helper.StatusFD; nil for
// any other command, which ends with its process.
func withStatus(cmd *exec.Cmd) (*statusPipe, error) {
	if len(cmd.Args) < 2 || cmd.Args[1] != helper.Arg || len(cmd.ExtraFiles) != helper.StatusFD-3 {
		return nil, nil
	}
	s, argv, err := helper.Parse(cmd.Args[2:])
	if err != nil || s.Mode != helper.ModeNS || s.LongLived || s.Serve || s.Probe || s.Status {
		return nil, nil
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	s.Status = true
	cmd.Args = append(cmd.Args[:1], helper.Args(s, argv)...)
	cmd.ExtraFiles = append(cmd.ExtraFiles, w)
	return &statusPipe{r, w}, nil
}

// read waits for the code; ok is false when the helper ended without one
// (it died, or its set-up failed): its exit then tells.
func (sp *statusPipe) read() (code int, ok bool) {
	defer sp.r.Close()
	var b [1]byte
	if n, _ := sp.r.Read(b[:]); n != 1 {
		return 0, false
	}
	return int(b[0]), true
}

// started closes coder's copy of the write end, once the helper has its
// own: the read then ends when the helper does.
func (sp *statusPipe) started() { sp.w.Close() }

// close closes both ends, when the helper did not start.
func (sp *statusPipe) close() {
	sp.r.Close()
	sp.w.Close()
}
