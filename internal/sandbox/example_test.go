package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/coder-agent/coder/internal/sandbox"
)

// A bash tool call: run, wait (ctx cancels it), restore the protected
// paths, and explain a refusal to the model.
func ExampleCommand() {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := sandbox.Profile{
		Workspace:     "/home/me/proj",
		TempDir:       "/tmp/coder-session-x", // one per session, removed at exit
		WritableRoots: []string{"/home/me/.cache"},
		DenyRead:      []string{"/home/me/.ssh"},
		Env:           os.Environ(),
		Secrets:       []string{"sk-the-api-key"},
	}
	guard, err := sandbox.Watch(p) // before the call
	if err != nil {
		return
	}
	cmd, err := sandbox.Command(ctx, p, []string{"/bin/bash", "-c", "go test ./..."})
	if err != nil {
		return
	}
	var stderr limitedBuffer
	cmd.Stdout, cmd.Stderr = os.Stdout, &stderr
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return
	}
	_ = proc.Wait()
	changes, _ := guard.Restore() // tell the model and the person
	fmt.Println(proc.ExitCode(), changes)
	if d, ok := sandbox.Explain(p, proc.ExitCode(), stderr.String()); ok {
		fmt.Println(d.Message) // appended to the tool result
	}
}

// A background task: it lives until its last process ends or Stop.
func ExampleBackground() {
	p := sandbox.Profile{Workspace: "/home/me/proj"}
	cmd, err := sandbox.Background(p, []string{"/bin/bash", "-c", "npm run dev"})
	if err != nil {
		return
	}
	proc, err := sandbox.Start(cmd)
	if err != nil {
		return
	}
	// … later, from bash_kill or at the end of the session:
	proc.Stop()
}

// Say once, at start, when the sandbox is weaker than full.
func ExampleProbe() {
	if w := sandbox.Probe().Warning(); w != "" {
		fmt.Fprintln(os.Stderr, "coder: "+w)
	}
}

type limitedBuffer struct{ b []byte }

func (l *limitedBuffer) Write(p []byte) (int, error) {
	if len(l.b) < 64<<10 {
		l.b = append(l.b, p...)
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string { return string(l.b) }
