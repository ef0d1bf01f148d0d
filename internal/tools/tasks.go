package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/textcut"
)

//go:embed description/bash_output.md
var bashOutputDescription string

//go:embed description/bash_kill.md
var bashKillDescription string

// taskOutputMax is how much of a task's output is kept unread; older
// output is dropped, and bash_output says how much.
const taskOutputMax = 1 << 20

// Tasks are a session's background commands (bash with background: true):
// started in the same sandbox as any call, read with bash_output, stopped
// with bash_kill, listed by /tasks, and all stopped when the session ends.
// Nothing else a call starts outlives the call.
type Tasks struct {
	mu    sync.Mutex
	seq   int
	tasks map[string]*task
}

type task struct {
	id, command string
	started     time.Time
	ended       time.Time // zero while it runs; guarded by Tasks.mu
	proc        Proc
	out         *taskOutput
	finish      sync.Once // Proc.Finish, once the task has ended and is read
}

// TaskInfo describes a task for /tasks.
type TaskInfo struct {
	ID, Command string
	Started     time.Time
	// Ended is when it ended; zero while it runs.
	Ended time.Time
	// ExitCode is -1 while the task runs.
	ExitCode int
}

// RunTime is how long the task ran, or has run so far.
func (i TaskInfo) RunTime(now time.Time) time.Duration {
	if i.Ended.IsZero() {
		return now.Sub(i.Started)
	}
	return i.Ended.Sub(i.Started)
}

// NewTasks returns an empty task list.
func NewTasks() *Tasks { return &Tasks{tasks: map[string]*task{}} }

func (t bashTool) background(ctx context.Context, c *Call, command string) (Result, error) {
	if t.tasks == nil {
		return Failure("background tasks are not available in this run"), nil
	}
	out := &taskOutput{}
	proc, err := t.launch.Launch(ctx, c, t.argv(command), t.env(), out, out, true)
	if err != nil {
		return Failure("cannot start the command: %v", err), nil
	}
	id := t.tasks.add(command, proc, out)
	b, _ := json.Marshal(map[string]any{"ok": true, "task_id": id, "status": "running",
		"note": "read its output with bash_output, stop it with bash_kill"})
	return Result{OK: true, Content: string(b), Summary: "started " + id}, nil
}

func (ts *Tasks) add(command string, proc Proc, out *taskOutput) string {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	ts.seq++
	id := fmt.Sprintf("task-%d", ts.seq)
	t := &task{id: id, command: command, started: time.Now(), proc: proc, out: out}
	ts.tasks[id] = t
	go func() {
		<-proc.Done()
		ts.mu.Lock()
		t.ended = time.Now()
		ts.mu.Unlock()
	}()
	return id
}

func (ts *Tasks) get(id string) (*task, bool) {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	t, ok := ts.tasks[id]
	return t, ok
}

// Running reports whether a task may still have processes running.
func (ts *Tasks) Running() bool {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	for _, t := range ts.tasks {
		if t.ended.IsZero() {
			return true
		}
	}
	return false
}

// List describes every task, oldest first.
func (ts *Tasks) List() []TaskInfo {
	ts.mu.Lock()
	defer ts.mu.Unlock()
	var out []TaskInfo
	for _, t := range ts.tasks {
		out = append(out, TaskInfo{ID: t.id, Command: t.command, Started: t.started, Ended: t.ended, ExitCode: t.proc.ExitCode()})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Started.Before(out[j].Started) })
	return out
}

// Stop stops task id (the person's /tasks stop).
func (ts *Tasks) Stop(id string) error {
	t, ok := ts.get(id)
	if !ok {
		return fmt.Errorf("no task %q", id)
	}
	t.proc.Stop()
	return nil
}

// StopAll stops every task (the session ends).
func (ts *Tasks) StopAll() {
	ts.mu.Lock()
	all := make([]*task, 0, len(ts.tasks))
	for _, t := range ts.tasks {
		all = append(all, t)
	}
	ts.mu.Unlock()
	var wg sync.WaitGroup
	for _, t := range all {
		wg.Go(t.proc.Stop)
	}
	wg.Wait()
}

// taskOutput keeps a task's combined output that was not read yet: the
// last taskOutputMax bytes of it. The buffer may run to twice that before
// its head is dropped, so a task that writes on and on costs one move per
// taskOutputMax bytes, not one per write.
type taskOutput struct {
	mu      sync.Mutex
	buf     []byte
	dropped int
}

func (o *taskOutput) Write(p []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, p...)
	if len(o.buf) > 2*taskOutputMax {
		o.trim()
	}
	return len(p), nil
}

// trim drops all but the last taskOutputMax bytes.
func (o *taskOutput) trim() {
	if over := len(o.buf) - taskOutputMax; over > 0 {
		n := copy(o.buf, o.buf[over:])
		o.buf, o.dropped = o.buf[:n], o.dropped+over
	}
}

// take returns the unread output and how many bytes were dropped unread.
func (o *taskOutput) take() (string, int) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.trim()
	s, d := textcut.Valid(string(o.buf)), o.dropped
	o.buf, o.dropped = nil, 0
	return s, d
}

type backgroundArgs struct {
	TaskID string `json:"task_id"`
}

// backgroundTool is bash_output (kill false) or bash_kill (kill true): the
// model reads or stops one of the session's background commands.
type backgroundTool struct {
	tasks *Tasks
	kill  bool
}

func (t backgroundTool) Name() string {
	if t.kill {
		return BashKill
	}
	return BashOutput
}

func (t backgroundTool) Description() string {
	if t.kill {
		return bashKillDescription
	}
	return bashOutputDescription
}

// Facts: reading or stopping the session's own background commands
// changes nothing in the workspace.
func (t backgroundTool) Facts() Facts {
	if t.kill {
		return Facts{Kind: chat.ToolExecute, Effect: EffectNone, Plan: true, General: true, Claude: []string{"KillShell", "KillBash"}}
	}
	return Facts{Kind: chat.ToolRead, Effect: EffectNone, Plan: true, General: true, Claude: []string{"BashOutput"}}
}

func (backgroundTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"task_id":{"type":"string"}},"required":["task_id"]}`)
}

func (t backgroundTool) Prepare(c *Call) error {
	a, err := decodeArgs[backgroundArgs](c)
	if err != nil {
		return err
	}
	c.Subject = strings.TrimSpace(a.TaskID)
	return nil
}

func (t backgroundTool) Run(_ context.Context, c *Call) (Result, error) {
	if t.tasks == nil {
		return Failure("background tasks are not available in this run"), nil
	}
	tk, ok := t.tasks.get(c.Subject)
	if !ok {
		var ids []string
		for _, i := range t.tasks.List() {
			ids = append(ids, i.ID)
		}
		return Failure("no task %q; tasks: %s", c.Subject, orNone(strings.Join(ids, ", "))), nil
	}
	if t.kill {
		tk.proc.Stop()
	}
	text, dropped := tk.out.take()
	status, code := "running", tk.proc.ExitCode()
	if code >= 0 {
		status = "exited"
	}
	res := map[string]any{"ok": true, "task_id": tk.id, "status": status, "output": text}
	if code >= 0 {
		res["exit_code"] = code
		// What the sandbox did (protected paths put back, a refusal), as a
		// foreground call's result says it; told once.
		tk.finish.Do(func() {
			if notes, _ := tk.proc.Finish(text); len(notes) > 0 {
				res["notes"] = strings.Join(notes, " ")
			}
		})
	}
	if dropped > 0 {
		res["dropped_bytes"] = dropped
	}
	b, _ := json.Marshal(res)
	summary := fmt.Sprintf("%s %s · %s", tk.id, status, plural.Of(countLines(text), "line"))
	return Result{OK: true, Content: string(b), Summary: summary}, nil
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
