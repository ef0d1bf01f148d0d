package tools

import (
	"bytes"
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

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
	truncatedLine = "[output truncated]"
)

type bashTool struct {
	ws          *Workspace
	shell       string
	maxTimeout  time.Duration // 0: no limit
	outputLimit int           // bytes per stream; 0: no cap
	sandbox     func(c *Call, shell string) (*exec.Cmd, error)
	secrets     []string
	supervise   func(*exec.Cmd) *exec.Cmd
}

// BashArgs are a bash call's arguments.
type BashArgs struct {
	Command   string `json:"command"`
	TimeoutMS int    `json:"timeout_ms"`
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
}

func (bashTool) Name() string        { return Bash }
func (bashTool) Description() string { return bashDescription }
func (bashTool) Kind() Kind          { return KindExecute }
func (bashTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"command":{"type":"string","description":"Shell command"},` +
		`"timeout_ms":{"type":"integer","description":"Time limit in milliseconds"}},` +
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

// Run starts the command in a new session (so in its own process group, and
// without a controlling terminal: nothing can stop on a tty read or touch the
// REPL's terminal). On timeout or cancel the whole group is killed and the
// partial output is returned with an error field; that is a Result, not an
// error.
func (t bashTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*BashArgs)
	if ctx.Err() != nil {
		return BashResult{ExitCode: -1, Error: "cancelled"}.result(), nil
	}
	stdout, stderr := &capWriter{limit: t.outputLimit}, &capWriter{limit: t.outputLimit}
	stdout.live, stderr.live = liveOutput(ctx, "stdout"), liveOutput(ctx, "stderr")
	cmd := t.command(c, a.Command, stdout, stderr)
	// A supervised command's death signal follows the OS thread that
	// started it: keep that thread alive, locked, until the command ends.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return Failure("cannot start %s: %v", cmd.Path, err), nil
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	reason := wait(ctx, cmd.Process.Pid, done, t.timeout(a.TimeoutMS))
	out := BashResult{
		ExitCode:   exitCode(cmd.ProcessState),
		Stdout:     stdout.String(),
		Stderr:     stderr.String(),
		Truncated:  stdout.truncated || stderr.truncated,
		DurationMS: time.Since(start).Milliseconds(),
		Error:      reason,
	}
	if reason != "" {
		out.ExitCode = -1
	}
	out.OK = out.ExitCode == 0 && reason == ""
	return out.result(), nil
}

func (t bashTool) command(c *Call, command string, stdout, stderr *capWriter) *exec.Cmd {
	sh := t.shell
	if sh == "" {
		sh = "/bin/bash"
	}
	cmd := exec.Command(sh, "-c", command)
	if t.sandbox != nil {
		// A sandbox that cannot be set up must not silently run the
		// command unconfined: the caller decides, so an error runs nothing.
		sc, err := t.sandbox(c, sh)
		if err != nil {
			sc = exec.Command(sh, "-c", "echo "+shellQuote("sandbox: "+err.Error())+" >&2; exit 126")
		}
		if sc != nil {
			cmd = sc
		}
	}
	cmd.Dir = t.ws.Root
	cmd.Stdin = nil // /dev/null
	cmd.Stdout, cmd.Stderr = stdout, stderr
	if cmd.Env == nil { // a sandboxed command may bring its own (TMPDIR)
		cmd.Env = os.Environ()
	}
	cmd.Env = append(withoutSecrets(cmd.Env, t.secrets), "GIT_TERMINAL_PROMPT=0", "GIT_PAGER=cat", "PAGER=cat")
	if t.supervise != nil { // the supervisor passes its environment on
		env := cmd.Env
		cmd = t.supervise(cmd)
		cmd.Dir, cmd.Stdin, cmd.Stdout, cmd.Stderr, cmd.Env = t.ws.Root, nil, stdout, stderr, env
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	cmd.WaitDelay = bashWaitDelay
	return cmd
}

// withoutSecrets drops environment entries whose value holds a secret, so
// `env` in a command cannot put the API key into the session or the next
// request.
func withoutSecrets(env, secrets []string) []string {
	out := env[:0:0]
	for _, kv := range env {
		_, v, _ := strings.Cut(kv, "=")
		if !slices.ContainsFunc(secrets, func(s string) bool { return len(s) >= 8 && strings.Contains(v, s) }) {
			out = append(out, kv)
		}
	}
	return out
}

func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// wait waits for the command and returns why it was stopped early, if it was.
func wait(ctx context.Context, pgid int, done <-chan error, timeout time.Duration) string {
	var expired <-chan time.Time
	if timeout > 0 {
		timer := time.NewTimer(timeout)
		defer timer.Stop()
		expired = timer.C
	}
	select {
	case <-done:
		return ""
	case <-expired:
		killGroup(pgid, done)
		return fmt.Sprintf("command timed out after %dms", timeout.Milliseconds())
	case <-ctx.Done():
		killGroup(pgid, done)
		return "cancelled"
	}
}

// killGroup sends SIGTERM to the process group, and SIGKILL once the shell
// has exited or the grace period is over, whichever comes first; then it
// waits for the shell to be reaped.
func killGroup(pgid int, done <-chan error) {
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	grace := time.NewTimer(bashKillGrace)
	defer grace.Stop()
	select {
	case <-done:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
	case <-grace.C:
		_ = syscall.Kill(-pgid, syscall.SIGKILL)
		<-done
	}
}

// exitCode is the shell's exit status, 128+N when a signal N ended it, -1
// when unknown.
func exitCode(ps *os.ProcessState) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	return ps.ExitCode()
}

func (o BashResult) result() Result {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(o)
	summary := fmt.Sprintf("exit %d · %s", o.ExitCode, formatDuration(o.DurationMS))
	if o.Error != "" {
		summary = o.Error
	}
	return Result{OK: o.OK, Content: strings.TrimSuffix(buf.String(), "\n"), Summary: summary, Bash: &o}
}

func formatDuration(ms int64) string {
	if ms < 1000 {
		return fmt.Sprintf("%dms", ms)
	}
	return fmt.Sprintf("%.1fs", float64(ms)/1000)
}

// capWriter keeps the first limit bytes written to it (all when limit is 0)
// and passes everything on to live, when set, as it arrives.
type capWriter struct {
	mu        sync.Mutex
	limit     int
	buf       bytes.Buffer
	truncated bool
	live      func([]byte)
}

func (w *capWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.live != nil {
		w.live(p)
	}
	room := len(p)
	if w.limit > 0 {
		room = min(room, w.limit-w.buf.Len())
	}
	if room < len(p) {
		w.truncated = true
	}
	w.buf.Write(p[:max(room, 0)])
	return len(p), nil
}

// String is the kept output as valid UTF-8; a truncated stream ends with a
// line "[output truncated]".
func (w *capWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	b := w.buf.Bytes()
	if !w.truncated {
		return validUTF8(string(b))
	}
	s := validUTF8(string(trimPartialRune(b)))
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return s + truncatedLine
}

// trimPartialRune drops a UTF-8 sequence cut short at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}
