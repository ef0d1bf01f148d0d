// Package orchestrator runs inputs: ! commands and normal turns (the agent
// loop of model calls and tool calls), and reports everything through an
// event.Sink. It knows no terminal and no concrete provider; / commands are
// dispatched above it (package commands).
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
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// Checkpointer persists the session at a key point (user message appended,
// assistant message committed, tool result appended, turn end). An error
// stops the run at once: memory and disk must not diverge.
type Checkpointer interface {
	Checkpoint(ctx context.Context, s *session.Session) error
}

// Owner is a store that gives each session one owner process
// (*session.Store): the core claims a session before it resumes it and
// releases the one it leaves, so a session live in another coder is
// refused, never written by two.
type Owner interface {
	Claim(id string) error
	Release(id string)
}

// UndoRecorder keeps per-turn undo snapshots. File tools feed it directly;
// the orchestrator brackets turns and bash calls.
type UndoRecorder interface {
	// BeginTurnAbove starts a turn numbered above last (the newest turn
	// the history holds) and returns its number.
	BeginTurnAbove(ctx context.Context, sessionID string, last int) (turn int, err error)
	// AroundCall is called before each tool call; the function it returns,
	// after it, records what the call changed (for bash: captures what the
	// command changed; notice: what it could not).
	AroundCall(ctx context.Context, bash bool) (after func(context.Context) (notice string, err error), err error)
	EndTurn(ctx context.Context) error
}

// Front is who the core talks to: the sink that receives every event, who
// approves calls and who answers questions. It is given at construction.
type Front struct {
	Sink event.Sink
	// Approver answers approval requests; nil denies them.
	Approver permission.Approver
	// Questioner answers the question and exit_plan_mode tools; nil means
	// nobody can be asked (headless).
	Questioner Questioner
	// Inbox holds messages a person sent while a turn runs; they join the
	// turn before its next model call. Nil: nobody can send any.
	Inbox Inbox
}

// Model is the model the core calls.
type Model struct {
	Provider  llm.Provider
	Name      string
	MaxTokens int
	// Catalog is the endpoint's catalog provider (catalog.ProviderFor):
	// its models join the provider's own list in Models.
	Catalog string
	// Images says whether the model accepts images (provider.images);
	// nil leaves it to the catalog.
	Images *bool
}

// Limits bound a run. Their defaults come from the config package; a zero
// MaxSteps is an error.
type Limits struct {
	MaxSteps     int
	ContextLimit int
	// MaxResponseBytes caps one model response; 0 means no cap.
	MaxResponseBytes int
	// TokenBudget stops a run whose model calls used more tokens (subagents).
	TokenBudget int
	// BudgetUSD stops a run before a model call that would take its cost
	// (priced from the catalog) past it; 0 means no budget.
	BudgetUSD float64
}

// Workflow is how a turn is run beyond the model's own choices.
type Workflow struct {
	// Verify configures auto-verify after edits.
	Verify VerifyOptions
	// RequireTodoForComplex: complex inputs start with a todo plan.
	RequireTodoForComplex bool
	// OutputSchema, when set, holds every final answer to a JSON Schema.
	OutputSchema *OutputSchema
}

// PromptParts are the system prompt's inputs besides the agent.
type PromptParts struct {
	Rules  []contextmgr.RulesFile
	Skills []contextmgr.SkillInfo
	// GitSummary, when set, describes the repository; it is called once per
	// process (a changing prefix defeats caching).
	GitSummary func() string
}

// Persistence is where the session and its undo snapshots are kept.
type Persistence struct {
	// Store persists the session; nil keeps it in memory only.
	Store Checkpointer
	// Undo records undo snapshots; nil keeps none.
	Undo UndoRecorder
	// Session to continue; nil starts a new one.
	Session *session.Session
}

// Options are the orchestrator's collaborators and limits.
type Options struct {
	Model Model
	Front Front
	Tools *tools.Registry
	// LazyTools, when set, is called once before the first turn and its
	// tools join the registry (MCP servers start then, not at start-up).
	LazyTools func(ctx context.Context) ([]tools.Tool, []error)
	Policy    permission.Policy
	// OnAlways is told when a person answered "always" to a policy ask, so
	// the same call is allowed from now on (and remembered in the project).
	OnAlways func(tool, subject string) error
	// Agent is the agent to start in (build when empty).
	Agent agent.Agent
	// Workspace is the absolute workspace root.
	Workspace   string
	Limits      Limits
	Workflow    Workflow
	Compaction  CompactionOptions
	Prompt      PromptParts
	Persistence Persistence
	// Subagents caps the task tool; zero values disable it.
	Subagents SubagentOptions
	// Secrets are redacted from every tool result before the model, the
	// session or any front end sees it; nil redacts nothing.
	Secrets *secrets.Redactor
	// Hooks runs the person's hooks at each event; nil runs none.
	Hooks Hooks
	// Diagnostics are the language servers that check edited files; nil
	// checks nothing.
	Diagnostics Diagnostics
	// Now is the clock (injected in tests).
	Now func() time.Time
}

// Orchestrator runs inputs one at a time; RunInput is not reentrant.
type Orchestrator struct {
	opts Options
	// tools is the registry the model sees: the caller's tools plus the
	// orchestrator's state tools (todos, questions, subagents).
	tools *tools.Registry
	conv  *conversation
	agent agent.Agent
	model string
	runs  int // turns run by this process, for run ids
	subs  subagents

	lastSummary string
	gitOnce     sync.Once
	git         string
	lazyOnce    sync.Once
	rebuild     string // an approved plan to restart the context with

	// parentSession is set in a subagent: hooks are told the parent's
	// session, and its end is SubagentStop.
	parentSession string
	// pendingContext is what SessionStart hooks added, for the next input;
	// hookStarted: they ran for this session.
	pendingContext []string
	hookStarted    bool
	// attended: a person is there (a questioner), so approvals are
	// theirs and Notification hooks run; a subagent takes its parent's.
	attended bool
	// books add up what model calls cost (cost.go); budgetWarned: the
	// budget was said to be unenforceable.
	books        books
	budgetWarned bool
	// requested is a mode switch asked for while an input runs.
	requested agentRequest
}

// ErrStepLimit ends a turn that used max_steps model calls without finishing.
var ErrStepLimit = errors.New("step limit reached")

// New checks the options and starts (or continues) a session.
func New(o Options) (*Orchestrator, error) {
	switch {
	case o.Model.Provider == nil:
		return nil, errors.New("orchestrator: no provider")
	case o.Tools == nil:
		return nil, errors.New("orchestrator: no tool registry")
	case o.Limits.MaxSteps < 1:
		return nil, fmt.Errorf("orchestrator: max_steps must be at least 1, got %d", o.Limits.MaxSteps)
	}
	if o.Policy == nil {
		o.Policy = permission.AllowAll{}
	}
	if o.Front.Approver == nil {
		o.Front.Approver = permission.DenyWhenAsked{}
	}
	if o.Front.Sink == nil {
		o.Front.Sink = event.Discard
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.Agent.Name == "" {
		o.Agent = agent.BuildAgent()
	}
	s := o.Persistence.Session
	if s == nil {
		s = session.New(o.Now(), o.Model.Name, o.Agent.Name)
	}
	orch := &Orchestrator{opts: o, agent: o.Agent, model: o.Model.Name,
		conv: newConversation(s, o.Persistence.Store, o.Now), attended: o.Front.Questioner != nil, books: newBooks()}
	own := []tools.Tool{todoRead{orch}, todoWrite{orch}, questionTool{orch}, exitPlanTool{orch}}
	if o.Subagents.MaxPerTurn > 0 {
		own = append(own, subagentTool{orch})
	}
	reg, err := tools.NewRegistry(append(o.Tools.Tools(), own...)...)
	if err != nil {
		return nil, fmt.Errorf("orchestrator: %w", err)
	}
	orch.tools = reg
	// The policy's presets are derived from the tools' facts.
	if p, ok := o.Policy.(permission.ToolAware); ok {
		p.UseTools(reg.Tools())
	}
	// A subagent's agent names no preset: it shares its parent's policy,
	// and with it the preset in force.
	if o.Agent.Preset != "" {
		if err := orch.usePreset(o.Agent); err != nil {
			return nil, err
		}
	}
	return orch, nil
}

// Status is what the core shows of itself.
type Status struct {
	SessionID string
	Title     string
	Model     string
	Agent     agent.Agent
	Workspace string
	Messages  int
	Todos     []session.Todo
	Usage     chat.Usage
	// ContextTokens is the size of what the next model call would send.
	ContextTokens int
	ContextLimit  int
}

// Status describes the session now. Not while a run is active.
func (o *Orchestrator) Status() Status {
	s := o.conv.sess
	return Status{SessionID: s.ID, Title: s.Title, Model: o.model, Agent: o.agent,
		Workspace: o.opts.Workspace, Messages: len(s.Messages), Todos: s.Todos, Usage: o.conv.usage(),
		ContextTokens: o.contextTokens(), ContextLimit: o.opts.Limits.ContextLimit}
}

// Session is the current session. Callers must not modify it.
func (o *Orchestrator) Session() *session.Session { return o.conv.sess }

// SetAgent switches the agent (and so the mode); the next model call gets
// its tools and prompt, and the next tool call its permission preset.
// Every switch passes here: front ends, plan exit, requested agents.
func (o *Orchestrator) SetAgent(a agent.Agent) {
	if err := o.usePreset(a); err != nil {
		o.emit(event.Notice{Text: err.Error()})
	}
	o.agent = a
	o.conv.setMode(a.Name)
	o.conv.promptChanged()
	o.emit(event.ModeChanged{Agent: a.Name, Mode: string(a.Mode)})
	o.emitContext()
}

// usePreset puts the agent's permission preset in force, or gives the
// session's back when it names none.
func (o *Orchestrator) usePreset(a agent.Agent) error {
	p, ok := o.opts.Policy.(permission.AgentPresets)
	if !ok {
		return nil
	}
	if err := p.UseAgentPreset(a.Preset); err != nil {
		return fmt.Errorf("agent %s: %w", a.Name, err)
	}
	return nil
}

// SetModel switches the model for the next call.
func (o *Orchestrator) SetModel(m string) {
	o.model = m
	o.conv.setModel(m)
	o.emit(event.ModelChanged{Model: m})
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
		if p, ok := o.opts.Policy.(permission.ToolAware); ok {
			p.UseTools(o.tools.Tools()) // /permissions lists them too
		}
	})
}

// ToolSpecs is the tool list the active agent offers the model.
func (o *Orchestrator) ToolSpecs() []chat.ToolSpec {
	return o.tools.Specs(o.enabled)
}

// SystemPrompt is the system prompt of the next model call.
func (o *Orchestrator) SystemPrompt() string {
	o.gitOnce.Do(func() {
		if o.opts.Prompt.GitSummary != nil {
			o.git = o.opts.Prompt.GitSummary()
		}
	})
	return contextmgr.SystemPrompt(contextmgr.Env{
		AgentPrompt: o.agent.Prompt,
		Mode:        o.agent.Mode,
		Cwd:         o.opts.Workspace,
		OS:          runtime.GOOS + "/" + runtime.GOARCH,
		Date:        o.opts.Now(),
		Model:       o.model,
		Git:         o.git,
		Rules:       o.opts.Prompt.Rules,
		Skills:      o.opts.Prompt.Skills,
	})
}

// overhead is the estimated size of the system prompt and tool list.
func (o *Orchestrator) overhead() int {
	return contextmgr.Estimate(o.SystemPrompt(), nil, o.ToolSpecs())
}

func (o *Orchestrator) contextTokens() int { return o.conv.tokens(o.overhead) }

func (o *Orchestrator) emit(e event.Event) { o.opts.Front.Sink.Emit(e) }

func (o *Orchestrator) emitContext() {
	o.emit(event.ContextUpdated{Tokens: o.contextTokens(), Limit: o.opts.Limits.ContextLimit})
}
