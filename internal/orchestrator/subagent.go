package orchestrator

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"sync"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

//go:embed description/task.md
var taskDescription string

// SubagentOptions cap the task tool (agents.subagents) so a fan-out cannot
// run away. MaxPerTurn 0 disables subagents.
type SubagentOptions struct {
	MaxConcurrent int
	MaxPerTurn    int
	TokenBudget   int
	MaxSteps      int
}

// ErrTokenBudget ends a subagent that used up its token budget.
var ErrTokenBudget = errors.New("token budget used up")

// The kinds of subagent: explorers only look; general ones may change
// things. Each gets the tools whose facts name its kind (none the task tool:
// no recursion).
const (
	exploreAgent = "explore"
	generalAgent = "general"
)

// subagentGets reports whether a subagent of kind is given a tool with facts f.
func subagentGets(kind string, f tools.Facts) bool {
	return kind == exploreAgent && f.Explore || kind == generalAgent && f.General
}

const subagentPrompt = `You are a subagent of coder, working for another agent, not a person. Do the task in the prompt with your tools, then answer with exactly what was asked for: concise, with file paths and line numbers where they help. Your answer is all the other agent sees.`

// subagents counts the task calls of the current turn.
type subagents struct {
	mu     sync.Mutex
	total  int
	active int
	seq    int
}

// subagentTool is the task tool: the model hands a task to a subagent.
type subagentTool struct{ o *Orchestrator }

type subagentArgs struct {
	Description string `json:"description"`
	Prompt      string `json:"prompt"`
	Agent       string `json:"agent"`
}

func (subagentTool) Name() string        { return tools.Task }
func (subagentTool) Description() string { return taskDescription }

// Facts: what a subagent does is its tools' business; as a whole the task
// tool is treated as an edit. No subagent gets it (no recursion).
func (subagentTool) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolOther, Effect: tools.EffectDelegate, Claude: []string{"Task"}}
}
func (subagentTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"description":{"type":"string","description":"3-6 words"},"prompt":{"type":"string"},"agent":{"type":"string","enum":["explore","general"]}},"required":["prompt"]}`)
}

// Prepare: explore subagents only read, so they run concurrently with
// other read-only calls.
func (subagentTool) Prepare(c *tools.Call) error {
	var a subagentArgs
	if err := json.Unmarshal(c.Input, &a); err != nil {
		return err
	}
	a.Agent = orDefault(a.Agent, exploreAgent)
	if a.Agent != exploreAgent && a.Agent != generalAgent {
		return fmt.Errorf("unknown agent %q (use explore or general)", a.Agent)
	}
	c.Args = &a
	c.Subject = a.Agent
	c.Summary = orDefault(a.Description, "subagent")
	c.ReadOnly = a.Agent == exploreAgent
	return nil
}

func (t subagentTool) Run(ctx context.Context, c *tools.Call) (tools.Result, error) {
	a := c.Args.(*subagentArgs)
	kind := a.Agent
	id, refusal := t.o.subs.start(t.o.opts.Subagents)
	if refusal != "" {
		return tools.Failure("%s", refusal), nil
	}
	defer t.o.subs.done()
	child, err := t.o.child(kind, id, c.ID)
	if err != nil {
		return tools.Result{}, err
	}
	out, err := child.RunTurn(ctx, a.Prompt)
	t.o.conv.addUsage(out.Usage)
	note := fmt.Sprintf("\n\n(subagent %s: %d model calls, %d tokens)", id, out.Steps, out.Usage.PromptTokens()+out.Usage.OutputTokens)
	switch {
	case isCancel(err):
		return tools.Result{}, err
	case errors.Is(err, ErrTokenBudget), errors.Is(err, ErrStepLimit):
		return tools.Result{OK: true, Content: out.Result + "\n\n[the subagent stopped early: " + err.Error() + "]" + note,
			Summary: "stopped early: " + err.Error()}, nil
	case err != nil:
		return tools.Failure("subagent %s failed: %v", id, err), nil
	}
	return tools.Result{OK: true, Content: out.Result + note, Summary: plural.Count(out.Steps, "step", "steps")}, nil
}

// start admits a subagent within the caps; refusal says why not.
func (s *subagents) start(caps SubagentOptions) (id, refusal string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.total >= caps.MaxPerTurn:
		return "", fmt.Sprintf("subagent refused: at most %d subagents per turn (agents.subagents.max_per_turn); do the rest yourself", caps.MaxPerTurn)
	case s.active >= caps.MaxConcurrent:
		return "", fmt.Sprintf("subagent refused: at most %d subagents at once (agents.subagents.max_concurrent); wait for the running ones", caps.MaxConcurrent)
	}
	s.total++
	s.active++
	s.seq++
	return strconv.Itoa(s.seq), ""
}

func (s *subagents) done() {
	s.mu.Lock()
	s.active--
	s.mu.Unlock()
}

func (s *subagents) resetTurn() {
	s.mu.Lock()
	s.total = 0
	s.mu.Unlock()
}

// child builds a subagent's orchestrator: its own history, recorded in the
// parent's session tagged with the task call (never in the parent's
// messages), the kind's tools, the parent's policy, approver and provider,
// events tagged.
func (o *Orchestrator) child(kind, id, taskCallID string) (*Orchestrator, error) {
	var ts []tools.Tool
	var names []string
	for _, t := range o.opts.Tools.Tools() {
		if subagentGets(kind, t.Facts()) {
			ts, names = append(ts, t), append(names, t.Name())
		}
	}
	reg, err := tools.NewRegistry(ts...)
	if err != nil {
		return nil, err
	}
	opts := o.opts
	opts.Tools = reg
	opts.LazyTools = nil
	opts.Persistence = Persistence{Store: &subagentRecord{parent: o.conv,
		run: session.SubagentRun{TaskCallID: taskCallID, Agent: kind, Subagent: id, Started: o.opts.Now()}}}
	opts.Model.Name = o.model
	// A subagent works in its parent's mode: a plan-mode explorer stays
	// read-only under the plan policy and sandbox.
	opts.Agent = agent.Agent{Name: kind, Mode: o.agent.Mode, Prompt: subagentPrompt, Tools: names}
	opts.Limits.MaxSteps = o.opts.Subagents.MaxSteps
	opts.Limits.TokenBudget = o.opts.Subagents.TokenBudget
	opts.Subagents = SubagentOptions{} // no recursion
	opts.Workflow = Workflow{}
	opts.Front.Questioner = nil
	opts.Front.Inbox = nil // a person steers the main agent only
	opts.Front.Sink = event.SinkFunc(func(e event.Event) { o.emit(event.Subagent{ID: id, Agent: kind, Event: e}) })
	c, err := New(opts)
	if err == nil {
		c.parentSession, c.attended = o.hookSession(), o.attended
		c.books = o.books // its calls cost the parent's run and session
	}
	return c, err
}

// SubagentCheckpointer is a store that keeps subagent runs apart from the
// session's history (session.Store does).
type SubagentCheckpointer interface {
	CheckpointSubagent(ctx context.Context, sessionID string, run session.SubagentRun) error
}

// subagentRecord is a subagent's Checkpointer: every save of its history
// records the whole run, tagged, in the parent's session, so what a
// subagent did is kept for sessions, resume and debugging while the parent
// model sees only the task call's result.
type subagentRecord struct {
	parent *conversation
	run    session.SubagentRun
}

func (r *subagentRecord) Checkpoint(ctx context.Context, s *session.Session) error {
	run := r.run
	run.RunID = s.ID
	run.Messages = slices.Clone(s.Messages)
	return r.parent.recordSubagent(ctx, run)
}
