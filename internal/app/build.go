package app

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/acp"
	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/agent/mode"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/commands"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/config/ollama"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/customcmd"
	"github.com/coder-agent/coder/internal/dirwatch"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/gitcmd"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/llm/catalog"
	"github.com/coder-agent/coder/internal/lsp"
	"github.com/coder-agent/coder/internal/mcp"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/launch"
	"github.com/coder-agent/coder/internal/sandbox/workspace"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/skills"
	"github.com/coder-agent/coder/internal/tools"
	"github.com/coder-agent/coder/internal/undo"
)

// setupError is a problem with flags, configuration or the provider setup
// (exit code 2), as opposed to a run that failed.
type setupError struct{ err error }

func (e setupError) Error() string { return e.err.Error() }
func (e setupError) Unwrap() error { return e.err }

// base is what every command needs: configuration and the session store.
type base struct {
	loaded *config.Loaded
	cfg    config.Config
	// store is set once storeOpen is closed, unless storeErr is: the store
	// opens in the background (openedStore waits for it), so that git's
	// summary starts without waiting for SQLite.
	store     *session.Store
	storeOpen chan struct{}
	storeErr  error
	// storeDir is the store's directory (storage.dir), checked to lie
	// inside the workspace through real directories.
	storeDir string
	// files is where the file tools read and write content; nil is the
	// disk (an editor's buffers under coder acp).
	files tools.Files
	// schema holds final answers to --json-schema; nil for none.
	schema *orchestrator.OutputSchema
	// terminals, under coder acp, are the editor's terminals the model's
	// commands run in (still in the sandbox); nil: coder runs them itself.
	terminals acp.Terminals
}

func (b *base) Close() {
	if b.storeOpen != nil {
		<-b.storeOpen
	}
	if b.store != nil {
		_ = b.store.Close()
	}
}

// openedStore waits until the session store has opened and says why it
// could not.
func (b *base) openedStore() error {
	<-b.storeOpen
	return b.storeErr
}

// storeFirst is err, unless the store failed too: its error comes first,
// as it did when the store opened before anything else.
func (b *base) storeFirst(err error) error {
	if serr := b.openedStore(); serr != nil {
		return serr
	}
	return err
}

// loadBase loads the configuration and starts opening the session store
// (openedStore waits for it).
func loadBase(f flags, env func(string) (string, bool)) (*base, error) {
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("current directory: %w", err)
	}
	loaded, err := config.Load(config.Options{
		Cwd:         wd,
		Env:         env,
		ProbeOllama: ollama.Probe,
		Flags: config.Overrides{
			Model: f.model, Mode: f.mode, Permissions: f.permissions, Cwd: f.cwd, Trust: f.trust,
			BudgetUSD: max(f.budget, 0),
		},
	})
	if err != nil {
		return nil, setupError{err}
	}
	cfg := loaded.Config
	root := cfg.Runtime.WorkspaceRoot
	dir, dbPath, err := storeLocation(root, cfg.Storage.Dir, cfg.Storage.SQLitePath)
	if err != nil {
		return nil, setupError{err}
	}
	// The directory first, as before: git's summary, started while SQLite
	// opens, counts it as it will be.
	dirs, err := session.MakeDirs(session.StoreOptions{Dir: dir, SQLitePath: dbPath, Workspace: root})
	if err != nil {
		return nil, fmt.Errorf("session store: %w", err)
	}
	b := &base{loaded: loaded, cfg: cfg, storeDir: dir, storeOpen: make(chan struct{})}
	go func() {
		defer close(b.storeOpen)
		store, err := dirs.Open()
		if err != nil {
			b.storeErr = fmt.Errorf("session store: %w", err)
			return
		}
		b.store = store
	}()
	return b, nil
}

// assembly is everything a turn needs, put together once per process
// (build).
type assembly struct {
	*base
	workspace string
	orch      *orchestrator.Orchestrator
	// input runs inputs: / commands, then the core.
	input *commands.Dispatcher
	sink  event.Sink
	mcp   *mcp.Manager
	// launch runs the model's commands in the sandbox; tasks are the
	// session's background commands.
	launch *launch.Launcher
	tasks  *tools.Tasks
	// lsp are the language servers that check edited files (nil: off).
	lsp *lsp.Manager
	// ended: the SessionEnd hooks ran.
	ended bool
	// warnings are shown once the session starts (bad skills, commands).
	warnings []error
	// catalog names the provider's prices in the model catalog.
	catalog string
}

// build wires provider, tools, orchestrator and commands onto the base,
// for the front end that consumes the events and answers the core.
func build(ctx context.Context, b *base, front orchestrator.Front) (*assembly, error) {
	cfg := b.cfg
	rp, err := b.loaded.ResolveProvider(ctx)
	if err != nil {
		return nil, b.storeFirst(setupError{err})
	}
	ws, err := tools.NewWorkspace(cfg.Runtime.WorkspaceRoot)
	if err != nil {
		return nil, b.storeFirst(fmt.Errorf("workspace %s: %w", cfg.Runtime.WorkspaceRoot, err))
	}
	redactor := secretsOf(rp, cfg)
	// git's summary (a process of several milliseconds, which the first
	// request waits for) runs while SQLite finishes opening the store.
	repoSummary := startGitSummary(ws.Root, redactor.Values())
	if err := b.openedStore(); err != nil {
		return nil, err
	}
	agents, ag, err := startAgent(cfg)
	if err != nil {
		return nil, setupError{err}
	}
	if b.loaded.FromFlag("permission.preset") {
		// --permissions is this run's explicit choice: like /permissions,
		// it wins over the start agent's preset until the next switch.
		ag.Preset = ""
	}
	policy, err := permission.NewPolicy(permission.PolicyOptions{Permission: cfg.Permission})
	if err != nil {
		return nil, setupError{err}
	}
	cat := catalog.ProviderFor(rp.Name, rp.BaseURL)
	tel, telWarnings := telemetrySink(ctx, cfg.Telemetry, func(model string, u chat.Usage) (float64, bool) {
		return catalog.Price(cat, model, u)
	})
	if tel != nil {
		front.Sink = teeSink{front: front.Sink, telemetry: tel}
	}
	sink := front.Sink
	journal := filepath.Join(b.storeDir, "journal")
	recovered, err := tools.RecoverPatches(ws, journal)
	if err != nil {
		return nil, fmt.Errorf("an interrupted patch could not be recovered: %w", err)
	}
	rec := undo.NewRecorder(b.store, ws.Root)
	home, _ := os.UserHomeDir()
	skillList, warnings := skills.Discover(cfg.Skills.Paths, ws.Root, home)
	custom, cmdErrs := customcmd.Discover(ws.Root, b.loaded.UserDir)
	warnings = append(warnings, cmdErrs...)
	launcher, tasks := launch.New(b.loaded, redactor.Values()), tools.NewTasks()
	rec.SetBusy(tasks.Running)
	launcher.Notify = func(text string) { sink.Emit(event.Notice{Text: text}) }
	warnings = append(warnings, launcher.RecoverJournals()...)
	var runCommands tools.Launcher = launcher
	if b.terminals != nil {
		runCommands = &terminalLauncher{Launcher: launcher, open: b.terminals, outputLimit: cfg.Safety.OutputLimitBytes}
	}
	builtins := tools.Builtins(tools.Env{
		Workspace:      ws,
		CommandTimeout: time.Duration(cfg.Safety.CommandTimeoutMS) * time.Millisecond,
		OutputLimit:    cfg.Safety.OutputLimitBytes,
		OutputDir:      launcher.TempDir,
		Tracker:        tools.NewReadTracker(),
		BeforeChange:   rec.Capture,
		SecretValues:   redactor.Values(),
		JournalDir:     journal,
		Launcher:       runCommands,
		Tasks:          tasks,
		Files:          b.files,
	})
	fetch, err := tools.NewFetchTool(tools.FetchOptions{AllowHosts: cfg.Fetch.AllowHosts})
	if err != nil {
		return nil, setupError{err}
	}
	builtins = append(builtins, fetch, tools.NewSkillTool(func() []skills.Skill { return skillList }))
	reg, err := tools.NewRegistry(builtins...)
	if err != nil {
		return nil, err
	}
	// A matcher that does not compile (coder's own files are checked when
	// loaded; .claude settings are another tool's) drops its group, said.
	hookRunner, err := newHooks(cfg, launch.NewHookLauncher(ws.Root, os.Environ(), credentials(rp)), launcher, b.storeDir)
	if err != nil {
		warnings = append(warnings, err)
	}
	servers := mcp.NewManager(cfg.MCP.Servers, mcp.Options{Cwd: ws.Root, MaxOutputBytes: cfg.Safety.OutputLimitBytes,
		Environ: func(keep map[string]bool) []string { return redactor.ScrubEnv(os.Environ(), keep) }})
	rules, ruleProblems := contextmgr.LoadRules(ws.Root, b.loaded.UserDir)
	langServers := newLSP(b, launcher, func() []string { return redactor.ScrubEnv(os.Environ(), nil) })
	provider, err := newProvider(rp, cat, sink)
	if err != nil {
		return nil, setupError{err}
	}
	orch, err := orchestrator.New(orchestrator.Options{
		Model: orchestrator.Model{Provider: provider, Name: rp.Model, MaxTokens: rp.MaxTokens,
			Catalog: cat, Images: rp.Images},
		Front:     front,
		Tools:     reg,
		LazyTools: lazyMCP(cfg, servers),
		Policy:    policy,
		OnAlways:  rememberApproval(policy, b.loaded.ProjectWriter(), launcher),
		Agent:     ag,
		Workspace: ws.Root,
		Limits: orchestrator.Limits{MaxSteps: cfg.Runtime.MaxSteps, ContextLimit: cfg.Runtime.ContextTokenLimit,
			MaxResponseBytes: cfg.Runtime.MaxResponseBytes, BudgetUSD: cfg.Budget.USD},
		Workflow: orchestrator.Workflow{
			Verify: orchestrator.VerifyOptions{Enabled: cfg.Workflow.AutoVerifyAfterEdit,
				MaxAttempts: cfg.Workflow.MaxVerifyAttempts, Commands: cfg.Workflow.VerifyCommands},
			RequireTodoForComplex: cfg.Workflow.RequireTodoForComplex,
			OutputSchema:          b.schema,
		},
		Compaction: orchestrator.CompactionOptions{
			Auto: cfg.Compaction.Auto, Prune: cfg.Compaction.Prune,
			Threshold: cfg.Compaction.Threshold, RecentMessages: cfg.Compaction.RecentMessages,
		},
		Prompt: orchestrator.PromptParts{Rules: rules,
			Skills: skillInfos(skillList), GitSummary: repoSummary},
		Persistence: orchestrator.Persistence{Store: b.store, Undo: rec},
		Subagents: orchestrator.SubagentOptions{
			MaxConcurrent: cfg.Agents.Subagents.MaxConcurrent, MaxPerTurn: cfg.Agents.Subagents.MaxPerTurn,
			TokenBudget: cfg.Agents.Subagents.TokenBudget, MaxSteps: cfg.Agents.Subagents.MaxSteps,
		},
		Secrets:     redactor,
		Hooks:       hookRunner,
		Diagnostics: lspDiagnostics(langServers),
	})
	if err != nil {
		return nil, err
	}
	input := commands.New(orch, commands.Deps{
		Sink: sink, Agents: agents, ProjectConfig: b.loaded.ProjectWriter(), Endpoint: rp.BaseURL, Sessions: b.store,
		Location: config.Location(cfg.UI), Undo: b.store, Permissions: policy,
		Skills: skillList, SkillErrors: warnings, Custom: custom, Tasks: tasks, Hooks: hookRunner.Groups(),
		LSP:          lspStatus(langServers),
		KeptMessages: cfg.Compaction.RecentMessages,
	})
	warnings = append(warnings, ruleProblems...)
	if n := b.loaded.UntrustedNotice(); n != "" {
		warnings = append([]error{errors.New(n)}, warnings...)
	}
	for _, r := range recovered {
		warnings = append(warnings, errors.New(r))
	}
	for _, w := range telWarnings {
		warnings = append(warnings, errors.New(w))
	}
	if w := workspace.Report(workspace.Profile(b.loaded, sandbox.WorkspaceWrite, "")).Warning(); w != "" {
		warnings = append([]error{errors.New(w)}, warnings...)
	}
	return &assembly{base: b, workspace: ws.Root, orch: orch, input: input, sink: sink, mcp: servers,
		launch: launcher, tasks: tasks, lsp: langServers, warnings: warnings, catalog: cat}, nil
}

// startAgent builds the agent catalog and picks the agent to start in:
// agents.default (--mode), or the mode a preset named after one selects
// (--permissions plan).
func startAgent(cfg config.Config) (*agent.Catalog, agent.Agent, error) {
	agents, err := agent.NewCatalog(definitions(cfg.Agents.Definitions))
	if err != nil {
		return nil, agent.Agent{}, err
	}
	name := mode.StartAgent(cfg.Agents.Default, cfg.Permission.Preset)
	ag, ok := agents.Lookup(name)
	if !ok {
		return nil, agent.Agent{}, fmt.Errorf("unknown mode %q (use build, plan or an agent from agents.definitions)", name)
	}
	return agents, ag, nil
}

// secretsOf are the values coder must never show the model or store: the
// API key, the configured header values, MCP servers' configured variables
// and headers, and every variable of the environment whose name says it is
// a credential.
func secretsOf(rp config.ResolvedProvider, cfg config.Config) *secrets.Redactor {
	named := secrets.FromEnvironment(os.Environ())
	named["the API key"] = rp.APIKey
	for k, v := range rp.Headers {
		named["provider header "+k] = v
	}
	for name, s := range cfg.MCP.Servers {
		for k, v := range s.Env {
			named["mcp "+name+" "+k] = v
		}
		for k, v := range s.Headers {
			named["mcp "+name+" header "+k] = v
		}
	}
	return secrets.NewRedactor(named)
}

// rememberApproval makes "always" stick: the exact call is allowed for the
// rest of the session, and a bash command is added to the project's
// permission.command_allowlist so it is allowed after a restart too — as
// the person's own answer, so its trust record follows (no question about
// it at the next start).
func rememberApproval(p *permission.Engine, project config.ProjectWriter, l *launch.Launcher) func(tool, subject string) error {
	return func(tool, subject string) error {
		p.AllowExact(tool, subject)
		if tool != tools.Bash || project.Path() == "" {
			return nil
		}
		if err := project.AppendList([]string{"permission", "command_allowlist"}, subject); err != nil {
			return err
		}
		// A background task may be running: its guard must keep this change.
		return l.Accept(project.Path())
	}
}

// startSession announces a new session, or resumes the one --resume or
// --continue names.
func (asm *assembly) startSession(ctx context.Context, f flags) error {
	var (
		s   *session.Session
		err error
	)
	switch {
	case f.resume != "":
		s, err = asm.store.Load(ctx, f.resume)
	case f.continueLast:
		s, err = asm.store.Latest(ctx)
		if errors.Is(err, session.ErrNotFound) {
			err = errors.New("no session to continue in this workspace; start one without --continue")
		}
	default:
		asm.orch.AnnounceSession(false)
		asm.warn()
		return nil
	}
	if err != nil {
		return setupError{err}
	}
	asm.warn()
	return asm.orch.Resume(ctx, s)
}

// Close ends what the session started: its background tasks, its
// language servers, its temp dir, its MCP servers.
func (asm *assembly) Close() {
	asm.end("other")
	asm.tasks.StopAll()
	if asm.lsp != nil {
		asm.lsp.Close()
	}
	asm.launch.Close()
	asm.mcp.Close()
}

// finish ends the process's one session once no turn can follow (a
// headless run's, a REPL's): its inotify watches first, so that the kernel
// destroys them while the session ends rather than at the exit
// (dirwatch.ReleaseAll). Not for an ACP session: others may still scan.
func (asm *assembly) finish(reason string) {
	dirwatch.ReleaseAll()
	asm.end(reason)
}

// end runs the SessionEnd hooks once (reason: Claude Code's, e.g.
// prompt_input_exit when the person left the REPL).
func (asm *assembly) end(reason string) {
	if !asm.ended {
		asm.ended = true
		asm.orch.EndSession(reason)
	}
}

// newHooks builds the hook runner from the configured hooks (already
// filtered by trust): each runs as the person's own program (outside), or
// in the sandbox when hooks.sandbox or its own "sandbox" asks.
func newHooks(cfg config.Config, outside, sandboxed hooks.Launcher, storeDir string) (*hooks.Runner, error) {
	var groups []hooks.Group
	for _, ev := range hooks.Events {
		for _, g := range cfg.Hooks.Events[string(ev)] {
			hg := hooks.Group{Event: ev, Matcher: g.Matcher, Source: g.Source}
			for _, h := range g.Hooks {
				hg.Commands = append(hg.Commands, hooks.Command{Command: h.Command,
					Timeout: time.Duration(h.Timeout) * time.Second, Sandbox: h.Sandbox || cfg.Hooks.Sandbox})
			}
			groups = append(groups, hg)
		}
	}
	return hooks.New(hooks.Options{Groups: groups, Launcher: outside, Sandboxed: sandboxed,
		OutputLimit: cfg.Safety.OutputLimitBytes,
		Transcript:  func(id string) string { return filepath.Join(storeDir, "sessions", id+".json") }})
}

// credentials are the values that let coder use its provider: the key and
// the configured header values. Processes coder starts outside the
// sandbox for the person (hooks) are not given them.
func credentials(rp config.ResolvedProvider) []string {
	out := []string{rp.APIKey}
	for _, v := range rp.Headers {
		out = append(out, v)
	}
	return out
}

// showResumed shows where a resumed session stands (the REPL only: a
// headless run prints its answer and nothing else).
func (asm *assembly) showResumed() {
	s := asm.orch.Session()
	asm.sink.Emit(asm.orch.Replay(commands.ReplayEntries))
	n := fmt.Sprintf("%d messages", len(s.Messages))
	if len(s.Messages) == 1 {
		n = "1 message"
	}
	asm.sink.Emit(event.Notice{Text: "resumed session " + s.ID + " (" + n + ")"})
}

func (asm *assembly) warn() {
	for _, w := range asm.warnings {
		asm.sink.Emit(event.Notice{Text: w.Error()})
	}
}

func definitions(defs []config.AgentDefinition) []agent.Definition {
	out := make([]agent.Definition, len(defs))
	for i, d := range defs {
		out[i] = agent.Definition{Name: d.Name, Mode: d.Mode, Prompt: d.Prompt, Preset: d.PermissionPreset,
			Tools: d.Tools, MaxSteps: d.MaxSteps}
	}
	return out
}

func skillInfos(list []skills.Skill) []contextmgr.SkillInfo {
	out := make([]contextmgr.SkillInfo, len(list))
	for i, s := range list {
		out[i] = contextmgr.SkillInfo{Name: s.Name, Description: s.Description}
	}
	return out
}

// lazyMCP starts the configured MCP servers when the first turn needs the
// tool list, not at start-up.
func lazyMCP(cfg config.Config, m *mcp.Manager) func(context.Context) ([]tools.Tool, []error) {
	if len(cfg.MCP.Servers) == 0 {
		return nil
	}
	return m.Tools
}

// startGitSummary runs git in the background from start-up, so its few
// milliseconds overlap the store and the first request instead of adding
// to them; the returned function waits for the answer.
func startGitSummary(dir string, secrets []string) func() string {
	ch := make(chan string, 1)
	go func() { ch <- gitSummary(dir, secrets) }()
	var once sync.Once
	var summary string
	return func() string {
		once.Do(func() { summary = <-ch })
		return summary
	}
}

// gitSummary is "branch, N changed files" for a repository, "" otherwise.
// It runs through gitcmd: nothing the repository configures runs.
func gitSummary(dir string, secrets []string) string {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	out, err := gitcmd.Output(ctx, dir, secrets, "status", "--porcelain=v1", "--branch")
	if err != nil {
		return ""
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	branch, changed := "", 0
	for sc.Scan() {
		line := sc.Text()
		if b, ok := strings.CutPrefix(line, "## "); ok {
			branch, _, _ = strings.Cut(b, "...")
			continue
		}
		changed++
	}
	return contextmgr.GitSummary(branch, changed)
}
