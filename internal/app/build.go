package app

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/commands"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/tools"
)

// runtime is everything a run needs, built once per process.
type runtime struct {
	cfg       config.Config
	provider  config.ResolvedProvider
	workspace string
	orch      *orchestrator.Orchestrator
	sink      *sinkRef
}

func (rt *runtime) Close() {}

func (rt *runtime) sessionStarted() event.SessionStarted {
	s := rt.orch.Session()
	var names []string
	for _, t := range rt.orch.ToolSpecs() {
		names = append(names, t.Name)
	}
	return event.SessionStarted{SessionID: s.ID, Model: rt.orch.Model(), Mode: rt.orch.Agent().Name,
		Cwd: rt.workspace, Tools: names, Resumed: len(s.Messages) > 0}
}

// build loads the configuration and wires the parts together.
func build(ctx context.Context, f flags, env func(string) (string, bool)) (*runtime, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("current directory: %w", err)
	}
	loaded, err := config.Load(config.Options{
		Cwd: wd,
		Env: env,
		Flags: config.Overrides{
			Model: f.model, Mode: f.mode, Permissions: f.permissions, Cwd: f.cwd,
		},
	})
	if err != nil {
		return nil, err
	}
	cfg := loaded.Config
	rp, err := loaded.ResolveProvider(ctx)
	if err != nil {
		return nil, err
	}
	root := cfg.Runtime.WorkspaceRoot
	ws, err := tools.NewWorkspace(root)
	if err != nil {
		return nil, fmt.Errorf("workspace %s: %w", root, err)
	}
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{
		Workspace:      ws,
		CommandTimeout: time.Duration(cfg.Safety.CommandTimeoutMS) * time.Millisecond,
		OutputLimit:    cfg.Safety.OutputLimitBytes,
	})...)
	if err != nil {
		return nil, err
	}
	ag, err := pickAgent(cfg)
	if err != nil {
		return nil, err
	}
	sink := &sinkRef{}
	prov := newProvider(rp, sink)
	orch, err := orchestrator.New(orchestrator.Options{
		Provider:     prov,
		Model:        rp.Model,
		MaxTokens:    rp.MaxTokens,
		Registry:     reg,
		Policy:       permission.AllowAll{},
		Approver:     permission.DenyWhenAsked{},
		Sink:         sink,
		Agent:        ag,
		Workspace:    ws.Root,
		MaxSteps:     cfg.Runtime.MaxSteps,
		ContextLimit: cfg.Runtime.ContextTokenLimit,
	})
	if err != nil {
		return nil, err
	}
	orch.SetCommands(commands.New(loaded.ProjectFile))
	return &runtime{cfg: cfg, provider: rp, workspace: ws.Root, orch: orch, sink: sink}, nil
}

// pickAgent is the configured default agent (--mode sets it).
func pickAgent(cfg config.Config) (agent.Agent, error) {
	name := cfg.Agents.Default
	a, ok := agent.Lookup(name)
	if !ok {
		return agent.Agent{}, fmt.Errorf("unknown mode %q (use build or plan)", name)
	}
	return a, nil
}

// newProvider builds the configured provider wrapped in the retry policy.
func newProvider(rp config.ResolvedProvider, sink event.Sink) llm.Provider {
	var p llm.Provider
	switch rp.Type {
	case "anthropic":
		p = anthropic.New(anthropic.Config{
			BaseURL: rp.BaseURL, APIKey: rp.APIKey, Model: rp.Model, Headers: rp.Headers,
			Timeout: rp.Timeout, MaxTokens: rp.MaxTokens, ThinkingBudget: rp.Reasoning.BudgetTokens,
		})
	default:
		p = openai.New(openai.Config{
			BaseURL: rp.BaseURL, APIKey: rp.APIKey, Model: rp.Model, Headers: rp.Headers,
			Timeout: rp.Timeout, MaxTokens: rp.MaxTokens, ReasoningEffort: rp.Reasoning.Effort,
		})
	}
	return llm.WithRetry(p, llm.RetryPolicy{
		MaxRetries: rp.MaxRetries,
		OnRetry: func(attempt int, wait time.Duration, err error) {
			sink.Emit(event.Notice{Text: fmt.Sprintf("retrying model call in %s (attempt %d): %v",
				wait.Round(10*time.Millisecond), attempt, err)})
		},
	})
}

// sinkRef forwards events to a sink chosen after the runtime is built.
type sinkRef struct{ p atomic.Pointer[event.Sink] }

func (s *sinkRef) set(k event.Sink) { s.p.Store(&k) }

func (s *sinkRef) Emit(e event.Event) {
	if k := s.p.Load(); k != nil {
		(*k).Emit(e)
	}
}
