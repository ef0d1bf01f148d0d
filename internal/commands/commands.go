// Package commands dispatches inputs above the core: built-in / commands
// and custom commands run here, each a small handler over the core's API;
// everything else (! commands and requests) goes to the core.
package commands

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/customcmd"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/skills"
	"github.com/coder-agent/coder/internal/tools"
	"github.com/coder-agent/coder/internal/undo"
)

// Core is what the commands need of the orchestrator.
type Core interface {
	RunInput(ctx context.Context, input string) (orchestrator.Outcome, error)
	RunTurn(ctx context.Context, input string) (orchestrator.Outcome, error)
	RunPrompt(ctx context.Context, p orchestrator.Prompt) (orchestrator.Outcome, error)
	Status() orchestrator.Status
	SetAgent(a agent.Agent)
	SetModel(m string)
	NewSession() *session.Session
	Resume(ctx context.Context, s *session.Session) error
	Compact(ctx context.Context, instructions string) (orchestrator.Compaction, error)
	LoadLazyTools(ctx context.Context)
	ToolSpecs() []chat.ToolSpec
	Models(ctx context.Context) ([]string, error)
	NoteUndo(ctx context.Context, restored []string) error
	Replay(limit int) event.Replay
	SessionSpend() orchestrator.Spend
	RunSpend() orchestrator.Spend
	Turns() []orchestrator.TurnInfo
	RewindConversation(ctx context.Context, number int) (orchestrator.TurnInfo, error)
	NoteRewind(ctx context.Context, t orchestrator.TurnInfo, restored []string) error
}

var _ Core = (*orchestrator.Orchestrator)(nil)

// Sessions is the session store as the commands use it.
type Sessions interface {
	List(ctx context.Context, limit int) ([]session.Summary, error)
	Load(ctx context.Context, id string) (*session.Session, error)
}

// Permissions is the policy as /permissions sees it.
type Permissions interface {
	Matrix(mode agent.Mode) string
	Preset() string
	// Presets are the names SetPreset takes.
	Presets() []string
	// SetPreset switches the preset; mode is set when the preset name was
	// a mode ("build" or "plan").
	SetPreset(name string) (mode agent.Mode, err error)
}

// Deps are what the commands work with besides the core.
type Deps struct {
	// Sink receives the commands' output (CommandOutput and Error events).
	Sink event.Sink
	// Agents are the agents /mode can switch to.
	Agents *agent.Catalog
	// ProjectConfig writes ./.coder/config.json, where /model persists its
	// choice (keeping its trust record current); zero: not saved.
	ProjectConfig config.ProjectWriter
	// Endpoint is the provider's base URL: /model saves its choice for it
	// (provider.saved_models), so it follows that endpoint.
	Endpoint string
	Sessions Sessions
	// Location is where session times are shown (ui.timezone).
	Location *time.Location
	// Undo is the snapshot store behind /undo and /diff.
	Undo undo.Store
	// Permissions is the policy behind /permissions.
	Permissions Permissions
	// Skills are the discovered skills and the ones that could not be read.
	Skills      []skills.Skill
	SkillErrors []error
	// Custom are the custom commands from .coder/commands and the user dir.
	Custom []customcmd.Command
	// Tasks are the session's background commands, behind /tasks.
	Tasks *tools.Tasks
	// Hooks are the active hooks, behind /hooks.
	Hooks []hooks.Group
	// LSP are the language servers behind /lsp; nil when they are off.
	LSP LSPStatus
	// KeptMessages is how many of the latest messages compaction keeps as
	// they are (compaction.recent_messages), for /compact's explanation.
	KeptMessages int
}

// LSPStatus is what /lsp shows of the language servers.
type LSPStatus interface {
	// Describe says each server's state and the latest diagnostics.
	Describe() string
}

// handler runs one command and returns its output.
type handler struct {
	summary string
	run     func(ctx context.Context, args string) (string, error)
}

// Dispatcher runs inputs: / commands itself, the rest through the core.
type Dispatcher struct {
	core  Core
	deps  Deps
	table map[string]handler
}

// New returns the dispatcher over core.
func New(core Core, d Deps) *Dispatcher {
	if d.Sink == nil {
		d.Sink = event.Discard
	}
	x := &Dispatcher{core: core, deps: d}
	x.table = map[string]handler{
		"help":        {"show commands and keys", x.help},
		"tools":       {"list the tools the current mode offers", x.listTools},
		"model":       {"show or switch the model: /model <name>", x.model},
		"mode":        {"switch mode: /mode build|plan (or a custom agent)", x.mode},
		"build":       {"switch to build mode", func(ctx context.Context, _ string) (string, error) { return x.mode(ctx, "build") }},
		"plan":        {"switch to plan mode", func(ctx context.Context, _ string) (string, error) { return x.mode(ctx, "plan") }},
		"new":         {"start a new session", x.newSession},
		"sessions":    {"list recent sessions", x.sessions},
		"resume":      {"continue a session: /resume <session-id> (no id: list them)", x.resume},
		"undo":        {"revert the files the last turn changed (again: the turn before)", x.undoLast},
		"permissions": {"show the permission matrix, or switch: /permissions strict|balanced|auto-edit|yolo|build|plan", x.permissions},
		"todos":       {"show the session's todo list", x.todos},
		"compact":     {"summarise older history now to free context: /compact [what to keep]", x.compact},
		"skills":      {"list the skills the model can load", x.listSkills},
		"diff":        {"show the workspace's changes (git, or this session's snapshots)", x.diff},
		"tasks":       {"list background tasks, or stop one: /tasks stop <id>", x.tasks},
		"hooks":       {"list the active hooks and where each came from", x.listHooks},
		"cost":        {"show this session's tokens and cost per model (the catalog's prices)", x.cost},
		"rewind":      {"go back to before an earlier turn: files, conversation or both: " + rewindUsage + " (Esc Esc)", x.rewind},
		"lsp":         {"show the language servers that check edits, and their latest diagnostics", x.lsp},
		"output":      {"show the full output of the latest tool call", frontOnly},
		"clear":       {"clear the screen (the session goes on)", frontOnly},
		"exit":        {"leave coder (the session is saved)", frontOnly},
		"quit":        {"leave coder (the session is saved)", frontOnly},
	}
	return x
}

// frontOnly is a command the interactive REPL runs itself (/output, /clear,
// /exit, /quit); listed here for /help and completion.
func frontOnly(context.Context, string) (string, error) {
	return "", errors.New("this command works in the interactive REPL")
}

// RunInput runs one input: a leading / is a built-in or custom command;
// anything else goes to the core (! commands and requests).
func (x *Dispatcher) RunInput(ctx context.Context, typed string) (orchestrator.Outcome, error) {
	line := input.Parse(typed)
	if line.Kind != input.Command {
		return x.core.RunInput(ctx, line.Text)
	}
	name, args := line.Name, line.Args
	if c, ok := x.customCommand(name); ok {
		return x.core.RunTurn(ctx, c.Expand(args))
	}
	h, ok := x.table[name]
	if !ok {
		return x.failed(errors.New("unknown command /" + name + " (try /help)"))
	}
	text, err := h.run(ctx, args)
	switch {
	case isCancel(err):
		return orchestrator.Outcome{State: event.StateAborted, Reason: "cancelled"}, err
	case err != nil:
		return x.failed(err)
	}
	if text != "" {
		x.deps.Sink.Emit(event.CommandOutput{Command: line.Text, Text: text})
	}
	return orchestrator.Outcome{State: event.StateCompleted, Result: text}, nil
}

func (x *Dispatcher) failed(err error) (orchestrator.Outcome, error) {
	x.deps.Sink.Emit(event.Error{Message: err.Error()})
	return orchestrator.Outcome{State: event.StateFailed, Reason: err.Error()}, err
}

// ToggleMode switches between the built-in build and plan agents (Tab on
// an empty input).
func (x *Dispatcher) ToggleMode() {
	next := agent.PlanAgent()
	if x.core.Status().Agent.Mode == agent.Plan {
		next = agent.BuildAgent()
	}
	x.core.SetAgent(next)
}

// Names lists the commands, built-in and custom, without the slash.
func (x *Dispatcher) Names() []string {
	var names []string
	for _, in := range x.Infos() {
		names = append(names, in.Name)
	}
	return names
}

// Summary is what command name does, in a line, for a completion menu.
func (x *Dispatcher) Summary(name string) string {
	for _, c := range x.deps.Custom {
		if c.Name == name {
			return c.Description
		}
	}
	return x.table[name].summary
}

// Inputs are what a person typed in the current session, oldest first (a
// resumed session's inputs, for a front end's history).
func (x *Dispatcher) Inputs() []string {
	var out []string
	for _, e := range x.core.Replay(0).Entries {
		if e.Role == event.ReplayUser {
			out = append(out, e.Text)
		}
	}
	return out
}

// Info describes one command for a front end's command list.
type Info struct {
	Name    string // without the slash
	Summary string
	// Custom: a custom command, whose arguments fill its template.
	Custom bool
}

// Infos lists the commands, built-in and custom, sorted by name; a custom
// command shadows the built-in of the same name, as it does in RunInput.
func (x *Dispatcher) Infos() []Info {
	var out []Info
	for _, c := range x.deps.Custom {
		out = append(out, Info{Name: c.Name, Summary: c.Description, Custom: true})
	}
	for n, h := range x.table {
		if _, shadowed := x.customCommand(n); !shadowed {
			out = append(out, Info{Name: n, Summary: h.summary})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

func (x *Dispatcher) help(context.Context, string) (string, error) {
	names := make([]string, 0, len(x.table))
	for n := range x.table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  /%-12s %s\n", n, x.table[n].summary)
	}
	if len(x.deps.Custom) > 0 {
		b.WriteString("Custom commands:\n")
		for _, c := range x.deps.Custom {
			fmt.Fprintf(&b, "  /%-12s %s\n", c.Name, c.Description)
		}
	}
	b.WriteString(helpText)
	return b.String(), nil
}

const helpText = `Input:
  text           a request to the model
  !cmd           run a shell command yourself (no model call); the model sees it next turn
  @path          attach a file (or a directory listing) to the request
Keys:
  Enter          send · while a turn runs: queue it (it joins the turn before its next model call)
  Ctrl+J, \+Enter a new line (Shift+Enter too, where the terminal reports it)
                 a paste of several lines shows as [Pasted text #N +L lines] in the line (Backspace removes it)
  Tab            on an empty line: switch build/plan mode · otherwise complete /commands, arguments, @paths
  Up/Down        walk this session's inputs · Ctrl+R: search them
  Esc            while typing: clear the line · while running: stop the model, the tool and everything queued
  Ctrl+L         redraw the screen · Ctrl+Z: suspend (fg to come back)
  Ctrl+C         exit (the session is saved) · Ctrl+D on an empty line: exit
Undo:
  /undo reverts the files the last turn changed with write/edit/patch and with bash
  (the workspace is compared before and after each command), without git.
  A file changed outside coder's calls since (your editor) is left as it is, named.
  Not covered: files outside the workspace, ignored paths (.gitignore, .git),
  files bash changed that are over 1 MiB, and workspaces over 100,000 files.`

func (x *Dispatcher) listTools(ctx context.Context, _ string) (string, error) {
	x.core.LoadLazyTools(ctx) // MCP servers' tools appear here too
	var b strings.Builder
	fmt.Fprintf(&b, "Tools in %s mode:\n", x.core.Status().Agent.Name)
	specs := x.core.ToolSpecs()
	w := 0
	for _, t := range specs {
		w = max(w, len(t.Name))
	}
	for _, t := range specs {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(&b, "  %-*s  %s\n", w, t.Name, desc)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// model switches the model and saves the choice, or with no argument
// lists the provider's models, the current one marked.
func (x *Dispatcher) model(ctx context.Context, args string) (string, error) {
	if args == "" {
		return x.listModels(ctx), nil
	}
	x.core.SetModel(args)
	project := x.deps.ProjectConfig
	if project.Path() == "" {
		return "model: " + args, nil
	}
	if err := project.SaveValue([]string{"provider", "model"}, args); err != nil {
		return "", fmt.Errorf("model switched to %s for this session, but saving it failed: %w", args, err)
	}
	if x.deps.Endpoint != "" {
		if err := project.SaveValue([]string{"provider", "saved_models", x.deps.Endpoint}, args); err != nil {
			return "", fmt.Errorf("model switched to %s for this session, but saving it failed: %w", args, err)
		}
	}
	return fmt.Sprintf("model: %s (saved to %s)", args, project.Path()), nil
}

func (x *Dispatcher) listModels(ctx context.Context) string {
	current := x.core.Status().Model
	models, err := x.core.Models(ctx)
	var b strings.Builder
	switch {
	case err != nil && len(models) == 0:
		return fmt.Sprintf("model: %s (the provider's models could not be listed: %v)", current, err)
	case err != nil:
		fmt.Fprintf(&b, "the provider's models could not be listed (%v); the catalog's for this endpoint (* = current):\n", err)
	default:
		b.WriteString("models the provider serves and the catalog knows (* = current):\n")
	}
	found := false
	for _, m := range models {
		mark := "  "
		if m == current {
			mark, found = "* ", true
		}
		b.WriteString("  " + mark + m + "\n")
	}
	if !found {
		b.WriteString("  * " + current + " (not in the provider's list)\n")
	}
	b.WriteString("switch with /model <name>")
	return b.String()
}

// mode switches the mode, or with no argument says which it is.
func (x *Dispatcher) mode(_ context.Context, args string) (string, error) {
	if strings.TrimSpace(args) == "" {
		a := x.core.Status().Agent
		return fmt.Sprintf("mode: %s (%s) · available: %s", a.Name, a.Mode, strings.Join(x.deps.Agents.Names(), ", ")), nil
	}
	a, ok := x.deps.Agents.Lookup(strings.TrimSpace(args))
	if !ok {
		return "", fmt.Errorf("unknown mode %q (use build, plan or an agent from agents.definitions)", args)
	}
	x.core.SetAgent(a)
	return "mode: " + a.Name, nil
}

// Arguments lists what a command's argument may be, for completion: the
// provider's models for /model, the modes for /mode, session ids for
// /resume. Nil when the command takes none that can be listed.
func (x *Dispatcher) Arguments(ctx context.Context, command string) []string {
	switch command {
	case "model":
		models, _ := x.core.Models(ctx)
		return models
	case "mode":
		return x.deps.Agents.Names()
	case "permissions":
		if x.deps.Permissions == nil {
			return nil
		}
		return x.deps.Permissions.Presets()
	case "tasks":
		return []string{"stop"}
	case "resume":
		if x.deps.Sessions == nil {
			return nil
		}
		sums, _ := x.deps.Sessions.List(ctx, listLimit)
		var ids []string
		for _, s := range sums {
			ids = append(ids, s.ID)
		}
		return ids
	}
	return nil
}

func isCancel(err error) bool {
	return errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)
}
