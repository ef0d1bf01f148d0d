package workspace

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/dirwatch"
	"github.com/coder-agent/coder/internal/sandbox"
)

// Stdio is a command's standard streams.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// RunOnce is `coder sandbox`: argv, in dir with stdio, under exactly the
// sandbox of the model's commands in the workspace l loaded, with access
// a, its protected paths guarded and journaled around it. What the sandbox
// did is said on stdio.Err; the code is argv's, and err coder's own
// failure (nothing ran, or the guard could not start).
func RunOnce(ctx context.Context, l *config.Loaded, a sandbox.Policy, dir string, argv []string, stdio Stdio) (int, error) {
	dirwatch.Disable() // two scans, then exit: see there
	tmp, err := os.MkdirTemp("", "coder-sandbox-")
	if err != nil {
		return 0, err
	}
	// The temp dir goes as soon as the command has ended, while the
	// protected paths are checked and the journal removed: each removal
	// waits on the disk (a discard, on a file system mounted with it).
	removed := make(chan struct{})
	removeTmp := sync.OnceFunc(func() {
		go func() {
			defer close(removed)
			_ = os.RemoveAll(tmp)
		}()
	})
	defer func() {
		removeTmp()
		<-removed
	}()
	p := Profile(l, a, tmp)
	report := Report(p)
	if w := report.Warning(); w != "" {
		fmt.Fprintln(stdio.Err, "coder "+w)
	}
	journals := JournalDir(l)
	recovered, err := sandbox.RecoverJournals(journals, p)
	for _, c := range recovered {
		fmt.Fprintln(stdio.Err, "coder sandbox: after a coder that ended early: "+c)
	}
	if err != nil {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+err.Error())
	}
	guard, err := sandbox.WatchJournaled(p, journals)
	if err != nil {
		return 0, err
	}
	defer guard.Close()
	p.Scanned = guard.Coverage()
	cmd, err := sandbox.Command(ctx, p, argv)
	if err != nil {
		return 0, err
	}
	stderr := &tailBuffer{limit: 64 << 10}
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdio.In, stdio.Out, io.MultiWriter(stdio.Err, stderr)
	cmd.Dir = dir
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return 0, err
	}
	_ = proc.Wait()
	code := proc.ExitCode()
	removeTmp()
	changes, err := guard.Restore()
	for _, c := range changes {
		fmt.Fprintln(stdio.Err, "coder sandbox: "+c)
	}
	if err != nil {
		fmt.Fprintln(stdio.Err, "coder sandbox: checking the protected paths: "+err.Error())
	}
	if report.Level == sandbox.LevelNone {
		return code, nil // nothing confined it: a failure is the command's own, as Run.Notes says
	}
	if d, ok := sandbox.Explain(p, code, stderr.String()); ok && d.Kind != "setup" {
		what := d.Kind
		if d.Path != "" { // a bare name or no name in the message: the kind alone
			what += " " + d.Path
		}
		fmt.Fprintln(stdio.Err, "coder sandbox: the sandbox refused this ("+what+"); coder doctor shows what it allows")
	}
	return code, nil
}

// tailBuffer keeps the last limit bytes written to it.
type tailBuffer struct {
	mu    sync.Mutex
	limit int
	buf   bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if extra := b.buf.Len() - b.limit; extra > 0 {
		b.buf.Next(extra)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return strings.Clone(b.buf.String())
}
