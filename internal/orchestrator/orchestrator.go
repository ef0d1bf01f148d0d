// Package orchestrator runs inputs: it dispatches / and ! commands, runs
// normal turns (the agent loop of model calls and tool calls), and reports
// everything through an event.Sink. It knows no terminal and no concrete
// provider.
package orchestrator

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// Checkpointer persists the session at a key point (user message appended,
// assistant message committed, tool result appended, turn end). An error
// stops the run at once: memory and disk must not diverge.
type Checkpointer interface {
	Checkpoint(ctx context.Context, s *session.Session) error
}

// UndoRecorder keeps per-turn undo snapshots (SPEC §14.3). File tools feed
// it directly; the orchestrator brackets turns and bash calls.
type UndoRecorder interface {
	BeginTurn(ctx context.Context, sessionID string) error
	// AroundBash is called before a bash call; the function it returns,
	// after it, captures what the command changed (notice: what it could not).
	AroundBash(ctx context.Context) (after func(context.Context) (notice string, err error), err error)
	EndTurn(ctx context.Context) error
}

// Options are the orchestrator's collaborators and limits. Defaults for the
// limits come from the config package; zero values here are errors.
type Options struct {
	Provider  llm.Provider
	Model     string
	MaxTokens int
	Registry  *tools.Registry
	Policy    permission.Policy
	Approver  permission.Approver
	Sink      event.Sink
	Agent     agent.Agent
	// Workspace is the absolute workspace root.
	Workspace    string
	MaxSteps     int
	ContextLimit int
	// MaxResponseBytes caps one model response; 0 means no cap.
	MaxResponseBytes int
	// Verify configures auto-verify after edits.
	Verify VerifyOptions
	// Undo records undo snapshots; nil keeps none.
	Undo UndoRecorder
	// RequireTodoForComplex: complex inputs start with a todo plan (SPEC §12a).
	RequireTodoForComplex bool
	// Compaction configures automatic and forced compaction.
	Compaction CompactionOptions
	// Rules are the rules files for the system prompt (loaded once).
	Rules []contextmgr.RulesFile
	// Skills are listed in the system prompt.
	Skills []contextmgr.SkillInfo
	// GitSummary, when set, describes the repository for the system prompt;
	// it is called once per process (a changing prefix defeats caching).
	GitSummary func() string
	// Agents are the agents /mode can switch to (built-in and custom).
	Agents *agent.Catalog
	// Questioner answers the question and exit_plan_mode tools; nil means
	// nobody can be asked (headless).
	Questioner Questioner
	// LazyTools, when set, is called once before the first turn and its
	// tools join the registry (MCP servers start then, not at start-up).
	LazyTools func(ctx context.Context) ([]tools.Tool, []error)
	// Subagents caps the task tool; zero values disable it.
	Subagents SubagentOptions
	// TokenBudget stops a run whose model calls used more tokens (subagents).
	TokenBudget int
	// OnAlways is told when a person answered "always" to a policy ask, so
	// the same call is allowed from now on (and remembered in the project).
	OnAlways func(tool, subject string) error
	// Store persists the session; nil keeps it in memory only.
	Store Checkpointer
	// Session to continue; nil starts a new one.
	Session *session.Session
	// Now is the clock (injected in tests).
	Now func() time.Time
}

// Orchestrator runs inputs one at a time; RunInput is not reentrant.
type Orchestrator struct {
	opts Options
	// tools is the registry the model sees: the caller's tools plus the
	// orchestrator's state tools (todos).
	tools    *tools.Registry
	sess     *session.Session
	agent    agent.Agent
	model    string
	runs     int // turns run by this process, for run ids
	commands CommandHandler
	subs     subagents
	usageMu  sync.Mutex // session usage: subagents finish concurrently

	ctx           contextState
	latestRequest string // pinned through compaction
	lastSummary   string
	gitOnce       sync.Once
	git           string
	lazyOnce      sync.Once
	rebuild       string // an approved plan to restart the context with
	est           historyCache
	// dirty: the session changed since it was last saved (fields set
	// outside a message append: usage, todos, mode, model).
	dirty bool
}

// ErrStepLimit ends a turn that used max_steps model calls without finishing.
var ErrStepLimit = errors.New("step limit reached")

// New checks the options and starts (or continues) a session.
func New(o Options) (*Orchestrator, error) {
	switch {
	case o.Provider == nil:
		return nil, errors.New("orchestrator: no provider")
	case o.Registry == nil:
		return nil, errors.New("orchestrator: no tool registry")
	case o.MaxSteps < 1:
		return nil, fmt.Errorf("orchestrator: max_steps must be at least 1, got %d", o.MaxSteps)
	}
	if o.Policy == nil {
		o.Policy = permission.AllowAll{}
	}
	if o.Approver == nil {
		o.Approver = permission.DenyWhenAsked{}
	}
	if o.Sink == nil {
		o.Sink = event.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Agent.Name == "" {
		o.Agent = agent.Build()
	}
	s := o.Session
	if s == nil {
		s = session.New(o.Now(), o.Model, o.Agent.Name)
	}
	orch := &Orchestrator{opts: o, sess: s, agent: o.Agent, model: o.Model}
	own := []tools.Tool{todoRead{orch}, todoWrite{orch}, questionTool{orch}, exitPlanTool{orch}}
	if o.Subagents.MaxPerTurn > 0 {
		own = append(own, taskTool{orch})
	}
	reg, err := tools.NewRegistry(append(o.Registry.Tools(), own...)...)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	orch.tools = reg
	return orch, nil
}

// Session is the current session. Callers must not modify it while a run is active.
func (o *Orchestrator) Session() *session.Session { return o.sess }

// Workspace is the absolute workspace root.
func (o *Orchestrator) Workspace() string { return o.opts.Workspace }

// Model is the model the next call uses.
func (o *Orchestrator) Model() string { return o.model }

// Agent is the active agent (mode).
func (o *Orchestrator) Agent() agent.Agent { return o.agent }

// LookupAgent finds an agent by name among the built-in and custom ones.
func (o *Orchestrator) LookupAgent(name string) (agent.Agent, bool) {
	return o.opts.Agents.Lookup(name)
}

// SetAgent switches the mode; the next model call gets its tools and prompt.
func (o *Orchestrator) SetAgent(a agent.Agent) {
	o.agent = a
	o.sess.Mode = a.Name
	o.dirty = true
	o.ctx = contextState{} // the prompt and tool list changed: estimate afresh
}

// SetApprover installs who answers approval requests (the REPL, once it exists).
func (o *Orchestrator) SetApprover(a permission.Approver) { o.opts.Approver = a }

// SetModel switches the model for the next call.
func (o *Orchestrator) SetModel(m string) {
	o.model = m
	o.sess.Model = m
	o.dirty = true
}

// LoadLazyTools adds the lazily started tools (MCP) once; a tool that
// cannot be added is reported, never fatal.
func (o *Orchestrator) LoadLazyTools(ctx context.Context) {
	o.lazyOnce.Do(func() {
		if o.opts.LazyTools == nil {
			return
		}
		ts, errs := o.opts.LazyTools(ctx)
		for _, t := range ts {
			if err := o.tools.Add(t); err != nil {
				errs = append(errs, err)
			}
		}
		for _, err := range errs {
			o.emit(event.Notice{Text: err.Error()})
		}
	})
}

// ToolSpecs is the tool list the active agent offers the model.
func (o *Orchestrator) ToolSpecs() []chat.ToolSpec {
	return o.tools.Specs(o.agent.Enabled)
}

// SystemPrompt is the system prompt of the next model call.
func (o *Orchestrator) SystemPrompt() string {
	o.gitOnce.Do(func() {
		if o.opts.GitSummary != nil {
			o.git = o.opts.GitSummary()
		}
	})
	return contextmgr.SystemPrompt(contextmgr.Env{
		AgentPrompt: o.agent.Prompt,
		Mode:        o.agent.Name,
		Cwd:         o.opts.Workspace,
		OS:          runtime.GOOS + "/" + runtime.GOARCH,
		Date:        o.opts.Now(),
		Model:       o.model,
		Git:         o.git,
		Rules:       o.opts.Rules,
		Skills:      o.opts.Skills,
	})
}

// ContextTokens is the size of what the next model call would send: the
// provider's count for the last call plus an estimate of what came after.
func (o *Orchestrator) ContextTokens() int {
	msgs := o.sess.Messages
	if o.ctx.last.IsZero() || o.ctx.lastCount > len(msgs) {
		return contextmgr.Estimate(o.SystemPrompt(), nil, o.ToolSpecs()) + o.historyEstimate()
	}
	return contextmgr.ContextSize(o.ctx.last, msgs[o.ctx.lastCount:], o.SystemPrompt(), o.ToolSpecs())
}

// historyEstimate is the estimated size of the whole history, kept per
// session and generation and extended as messages are appended: messages do
// not change once added, and re-estimating a long resumed history on every
// context update cost milliseconds each time.
func (o *Orchestrator) historyEstimate() int {
	c, msgs := &o.est, o.sess.Messages
	if c.sess != o.sess || c.generation != o.sess.Generation || c.count > len(msgs) {
		*c = historyCache{sess: o.sess, generation: o.sess.Generation}
	}
	c.tokens += contextmgr.Estimate("", msgs[c.count:], nil)
	c.count = len(msgs)
	return c.tokens
}

// historyCache is historyEstimate's running sum.
type historyCache struct {
	sess       *session.Session
	generation int
	count      int
	tokens     int
}

func (o *Orchestrator) emit(e event.Event) { o.opts.Sink.Emit(e) }

func (o *Orchestrator) emitContext() {
	o.emit(event.ContextUpdated{Tokens: o.ContextTokens(), Limit: o.opts.ContextLimit})
}

// appendMessage adds a message to the session and checkpoints it.
func (o *Orchestrator) appendMessage(ctx context.Context, m chat.Message) error {
	o.sess.Messages = append(o.sess.Messages, m)
	o.sess.Updated = o.opts.Now()
	return o.checkpoint(ctx)
}

func (o *Orchestrator) checkpoint(ctx context.Context) error {
	if o.opts.Store == nil {
		return nil
	}
	// A cancelled run still records what happened: the write is not cancelled.
	if err := o.opts.Store.Checkpoint(context.WithoutCancel(ctx), o.sess); err != nil {
		return &StorageError{Err: err}
	}
	o.dirty = false
	return nil
}

// StorageError is a failed session write; the run stops at once.
type StorageError struct{ Err error }

func (e *StorageError) Error() string { return "session could not be saved: " + e.Err.Error() }
func (e *StorageError) Unwrap() error { return e.Err }
