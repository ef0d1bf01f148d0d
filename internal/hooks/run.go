package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
)

// Launcher starts a hook's shell command with stdin as its input and waits
// for it. When ctx ends it must stop the command and everything it started
// before returning. exitCode is the command's (128+N for signal N).
type Launcher interface {
	RunHook(ctx context.Context, command string, stdin []byte, stdout, stderr io.Writer) (exitCode int, err error)
}

// Options configure a Runner.
type Options struct {
	Groups []Group
	// Launcher starts a hook; Sandboxed starts one whose Command.Sandbox
	// is set (nil: Launcher starts those too).
	Launcher  Launcher
	Sandboxed Launcher
	// OutputLimit caps what is kept of each stream of a hook (bytes); what
	// is beyond is read and dropped, so a chatty hook cannot stall.
	OutputLimit int
	// Transcript is the file a session's history is mirrored to.
	Transcript func(sessionID string) string
}

// Runner runs the configured hooks of an event. Safe for concurrent use.
type Runner struct {
	groups []Group
	opts   Options
}

// New compiles the groups' matchers.
func New(o Options) (*Runner, error) {
	r := &Runner{opts: o}
	var errs []error
	for _, g := range o.Groups {
		if err := g.compile(); err != nil {
			errs = append(errs, err)
			continue
		}
		r.groups = append(r.groups, g)
	}
	return r, errors.Join(errs...)
}

// Groups are the active groups, in configuration order (for /hooks).
func (r *Runner) Groups() []Group {
	if r == nil {
		return nil
	}
	return r.groups
}

// Has reports whether any hook is configured for ev, so callers can skip
// building an input nobody reads.
func (r *Runner) Has(ev Event) bool {
	if r == nil {
		return false
	}
	for _, g := range r.groups {
		if g.Event == ev {
			return true
		}
	}
	return false
}

// Input is what an event tells its hooks; it is sent as Claude Code's JSON
// (see payload). Fields that do not belong to the event stay empty.
type Input struct {
	Event          Event
	SessionID      string
	Cwd            string
	PermissionMode string
	// Tool events. ToolAliases are Claude Code's names for the tool (its
	// facts), which the matchers may use instead of ToolName.
	ToolName     string
	ToolAliases  []string
	ToolUseID    string
	ToolInput    json.RawMessage
	ToolResponse json.RawMessage
	// PostToolUseFailure: what went wrong, and whether the person
	// interrupted the call.
	Error       string
	IsInterrupt bool
	// UserPromptSubmit.
	Prompt string
	// Stop, SubagentStop: a Stop hook already made the model go on.
	StopHookActive bool
	// SessionStart: startup, resume, clear or compact.
	Source string
	// PreCompact: manual or auto.
	Trigger            string
	CustomInstructions string
	// Notification.
	Message string
	// SessionEnd: clear, logout, prompt_input_exit or other.
	Reason string
}

// subject is what the event's matchers are matched against; ok is false
// for the events that have no matcher (every group applies).
func (in Input) subject() (s string, ok bool) {
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		return in.ToolName, true
	case SessionStart:
		return in.Source, true
	case PreCompact:
		return in.Trigger, true
	case SessionEnd:
		return in.Reason, true
	}
	return "", false
}

// aliases are the other names the subject goes by: a tool's Claude Code
// names.
func (in Input) aliases() []string {
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		return in.ToolAliases
	}
	return nil
}

func (r *Runner) payload(in Input) []byte {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": "",
		"cwd":             in.Cwd,
		"hook_event_name": string(in.Event),
	}
	if r.opts.Transcript != nil && in.SessionID != "" {
		m["transcript_path"] = r.opts.Transcript(in.SessionID)
	}
	if in.PermissionMode != "" {
		m["permission_mode"] = in.PermissionMode
	}
	raw := func(b json.RawMessage) any {
		if len(b) == 0 || !json.Valid(b) {
			return map[string]any{}
		}
		return b
	}
	switch in.Event {
	case PreToolUse, PostToolUse, PostToolUseFailure:
		m["tool_name"], m["tool_input"] = in.ToolName, raw(in.ToolInput)
		if in.ToolUseID != "" {
			m["tool_use_id"] = in.ToolUseID
		}
		switch in.Event {
		case PostToolUse:
			m["tool_response"] = raw(in.ToolResponse)
		case PostToolUseFailure:
			m["error"], m["is_interrupt"] = in.Error, in.IsInterrupt
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop, SubagentStop:
		m["stop_hook_active"] = in.StopHookActive
	case SessionStart:
		m["source"] = in.Source
	case PreCompact:
		m["trigger"], m["custom_instructions"] = in.Trigger, in.CustomInstructions
	case Notification:
		m["message"] = in.Message
	case SessionEnd:
		m["reason"] = in.Reason
	}
	b, _ := json.Marshal(m) // strings, bools and valid raw JSON always encode
	return b
}

// Run runs every hook of in.Event whose matcher matches, in parallel, each
// bounded by its timeout, and merges what they said. A hook that fails,
// times out or cannot start is reported in the Outcome and blocks nothing.
func (r *Runner) Run(ctx context.Context, in Input) Outcome {
	var cmds []Command
	seen := map[string]bool{}
	subject, matched := in.subject()
	for i := range r.Groups() {
		g := &r.groups[i]
		if g.Event != in.Event || (matched && !g.Matches(subject, in.aliases()...)) {
			continue
		}
		for _, c := range g.Commands {
			// The same command twice (a user and a project file) runs once.
			if !seen[c.Command] {
				seen[c.Command] = true
				cmds = append(cmds, c)
			}
		}
	}
	if len(cmds) == 0 {
		return Outcome{}
	}
	stdin := r.payload(in)
	runs := make([]Run, len(cmds))
	var wg sync.WaitGroup
	for i, c := range cmds {
		wg.Go(func() { runs[i] = r.runOne(ctx, in.Event, c, stdin) })
	}
	wg.Wait()
	return merge(in.Event, runs)
}

func (r *Runner) runOne(ctx context.Context, ev Event, c Command, stdin []byte) Run {
	limit := r.opts.OutputLimit
	if limit <= 0 {
		limit = 64 << 10
	}
	tctx, cancel := context.WithTimeout(ctx, c.Timeout)
	defer cancel()
	stdout, stderr := &capped{limit: limit}, &capped{limit: limit}
	launcher := r.opts.Launcher
	if c.Sandbox && r.opts.Sandboxed != nil {
		launcher = r.opts.Sandboxed
	}
	code, err := launcher.RunHook(tctx, c.Command, stdin, stdout, stderr)
	res := raw{exit: code, stdout: stdout.String(), stderr: stderr.String(), err: err}
	switch {
	case ctx.Err() != nil:
		res.err = errors.New("cancelled")
	case tctx.Err() != nil:
		res.timedOut = c.Timeout
	}
	run := parse(ev, res)
	run.Command = c.Command
	return run
}

// capped keeps the first limit bytes written to it and drops the rest.
type capped struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	limit     int
	truncated bool
}

func (w *capped) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if room := w.limit - w.buf.Len(); room < len(p) {
		w.truncated = true
		w.buf.Write(p[:max(room, 0)])
	} else {
		w.buf.Write(p)
	}
	return len(p), nil
}

func (w *capped) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	// Valid UTF-8 (a cut may split a character): it goes to events, JSON
	// output and terminals.
	s := strings.ToValidUTF8(w.buf.String(), "\uFFFD")
	if w.truncated {
		s += fmt.Sprintf("\n[output cut at %d bytes]", w.limit)
	}
	return s
}
