package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/shell"
)

//go:embed description/bash.md
var bashDescription string

const (
	// bashKillGrace is how long a process group gets between SIGTERM and SIGKILL.
	bashKillGrace = 2 * time.Second
	// bashWaitDelay bounds the wait for output pipes that background
	// processes keep open after the shell has exited.
	bashWaitDelay = time.Second
)

type bashTool struct {
	ws          *Workspace
	shell       string
	maxTimeout  time.Duration // 0: no limit
	outputLimit int           // bytes per stream; 0: no cap
	// outputDir is where a stream cut for the model is kept whole (the
	// session's temp dir); nil keeps none.
	outputDir func() (string, error)
	launch    Launcher
	secrets   []string
	tasks     *Tasks
}

// BashArgs are a bash call's arguments.
type BashArgs struct {
	Command   string `json:"command"`
	TimeoutMS int    `json:"timeout_ms"`
	// Background starts the command as a session task (bash_output reads
	// it, bash_kill stops it) instead of waiting for it.
	Background bool `json:"background"`
}

// BashResult is a bash call's outcome; its JSON is what the model
// receives, and field order is part of the contract.
type BashResult struct {
	OK         bool   `json:"ok"`
	ExitCode   int    `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	Truncated  bool   `json:"truncated"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error,omitempty"`
	// StdoutFile and StderrFile hold a stream whole when it was cut.
	StdoutFile string `json:"stdout_file,omitempty"`
	StderrFile string `json:"stderr_file,omitempty"`
	// Notes say what coder's sandbox did: a refusal explained, protected
	// files put back.
	Notes string `json:"notes,omitempty"`
	// Refused: the sandbox seems to have refused the command.
	Refused bool `json:"-"`
}

func (bashTool) Name() string          { return Bash }
func (t bashTool) Description() string { return describeShell(bashDescription, t.argv("")) }
func (bashTool) Facts() Facts {
	return Facts{Kind: chat.ToolExecute, Effect: EffectOpen, Plan: true, General: true, Claude: []string{"Bash"}}
}
func (bashTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"command":{"type":"string","description":"Shell command"},` +
		`"timeout_ms":{"type":"integer","description":"Time limit in milliseconds"},` +
		`"background":{"type":"boolean","description":"Run as a task that outlives the call; returns its task_id"}},` +
		`"required":["command"]}`)
}

// Prepare parses the command line once; the policy and the approval
// prompt read the analysis (c.Shell), its danger reasons become c.Reasons.
func (t bashTool) Prepare(c *Call) error {
	a, err := decodeArgs[BashArgs](c)
	if err != nil {
		return err
	}
	if strings.TrimSpace(a.Command) == "" {
		return errors.New("empty command")
	}
	c.Shell = shell.Analyze(a.Command, shell.Options{Workspace: t.ws.Root})
	c.Subject, c.Summary = a.Command, firstLine(a.Command, 80)
	c.Reasons = append(c.Reasons, c.Shell.Reasons...)
	return nil
}

// timeout is the limit for one call: the requested one capped by the
// configured maximum, or the maximum when none is requested.
func (t bashTool) timeout(requestedMS int) time.Duration {
	d := time.Duration(requestedMS) * time.Millisecond
	if d <= 0 || (t.maxTimeout > 0 && d > t.maxTimeout) {
		return t.maxTimeout
	}
	return d
}

// Run starts the command through the launcher (coder's sandbox) and waits
// for it: on timeout or cancel everything it started is stopped and the
// partial output is returned with an error field; that is a Result, not an
// error. A background command is started as a session task instead.
func (t bashTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*BashArgs)
	if ctx.Err() != nil {
		return BashResult{ExitCode: -1, Error: "cancelled"}.result(), nil
	}
	if a.Background {
		return t.background(ctx, c, a.Command)
	}
	stdout, stderr := t.output(ctx, "stdout"), t.output(ctx, "stderr")
	defer stdout.Close()
	defer stderr.Close()
	start := time.Now()
	proc, err := t.launch.Launch(ctx, c, t.argv(a.Command), t.env(), stdout, stderr, false)
	if err != nil {
		return Failure("cannot start the command: %v", err), nil
	}
	reason := waitProc(ctx, proc, t.timeout(a.TimeoutMS))
	out := BashResult{
		ExitCode:   proc.ExitCode(),
		Stdout:     stdout.String(),
		Stderr:     stderr.String(),
		Truncated:  stdout.truncated() || stderr.truncated(),
		DurationMS: time.Since(start).Milliseconds(),
		Error:      reason,
		StdoutFile: stdout.fullPath(),
		StderrFile: stderr.fullPath(),
	}
	notes, refused := proc.Finish(out.Stderr)
	out.Notes, out.Refused = strings.Join(notes, " "), refused && reason == ""
	if reason != "" {
		out.ExitCode = -1
	}
	out.OK = out.ExitCode == 0 && reason == ""
	return out.result(), nil
}

// output is what keeps one stream of a call for the model; past the limit
// the whole stream goes to a new file in the session's temp dir, made
// with O_EXCL under a random name: a planted link is never followed.
func (t bashTool) output(ctx context.Context, stream string) *cutOutput {
	w := &cutOutput{limit: t.outputLimit, live: liveOutput(ctx, stream)}
	if t.outputDir != nil {
		w.open = func() (*os.File, error) {
			dir, err := t.outputDir()
			if err != nil {
				return nil, err
			}
			return os.CreateTemp(dir, "bash-"+stream+"-*.txt")
		}
	}
	return w
}

// argv is the shell command line for command.
func (t bashTool) argv(command string) []string {
	if t.shell == "" {
		return ShellArgv(command)
	}
	return []string{t.shell, "-c", command}
}

// env is the command's environment: coder's, without anything holding a
// secret, with git and pagers kept from waiting for a person.
func (t bashTool) env() []string {
	return append(withoutSecrets(os.Environ(), t.secrets), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat")
}

// withoutSecrets drops environment entries whose value holds a secret, so
// `env` in a command cannot put the API key into the session or the next
// request.
func withoutSecrets(env, values []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		if !secrets.Holds(v, values) {
			out = append(out, kv)
		}
	}
	return out
}

// waitProc waits for proc and returns why it was stopped early, if it was.
func waitProc(ctx context.Context, proc Proc, timeout time.Duration) string {
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-proc.Done():
		return ""
	case <-expired:
		proc.Stop()
		return fmt.Sprintf("command timed out after %dms", timeout.Milliseconds())
	case <-ctx.Done():
		proc.Stop()
		return "cancelled"
	}
}

// WithNote is the result with note added to its notes, for the model.
func (o BashResult) WithNote(note string) Result {
	o.Notes = strings.TrimSpace(o.Notes + " " + note)
	return o.result()
}

func (o BashResult) result() Result {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(o)
	summary := fmt.Sprintf("exit %d · %s", o.ExitCode, formatDuration(o.DurationMS))
	switch {
	case o.Error != "":
		summary = o.Error
	case o.Refused:
		summary += " · refused by the sandbox"
	}
	return Result{OK: o.OK, Content: strings.TrimSuffix(buf.String(), "\n"), Summary: summary, Bash: &o}
}

func formatDuration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}
