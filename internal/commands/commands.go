// Package commands holds the built-in / commands, each a small handler over
// the orchestrator's API.
package commands

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/customcmd"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/skills"
	"github.com/coder-agent/coder/internal/undo"
)

// handler runs one command.
type handler struct {
	summary string
	run     func(ctx context.Context, o *orchestrator.Orchestrator, args string) (string, error)
}

// Sessions is the session store as the commands use it.
type Sessions interface {
	List(ctx context.Context, limit int) ([]session.Summary, error)
	Load(ctx context.Context, id string) (*session.Session, error)
}

// Deps are what the commands work with besides the orchestrator.
type Deps struct {
	// ProjectConfig is ./.coder/config.json, where /model persists its choice.
	ProjectConfig string
	Sessions      Sessions
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
}

// Set is the table of built-in commands.
type Set struct {
	Deps
	table map[string]handler
}

// New returns the built-in commands.
func New(d Deps) *Set {
	s := &Set{Deps: d}
	s.table = map[string]handler{
		"help":  {"show commands and keys", s.help},
		"tools": {"list the tools the current mode offers", listTools},
		"model": {"show or switch the model: /model <name>", s.model},
		"mode":  {"switch mode: /mode build|plan", mode},
		"build": {"switch to build mode", func(ctx context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
			return mode(ctx, o, "build")
		}},
		"plan": {"switch to plan mode", func(ctx context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
			return mode(ctx, o, "plan")
		}},
		"new":         {"start a new session", newSession},
		"sessions":    {"list recent sessions", s.sessions},
		"resume":      {"continue a session: /resume <session-id> (no id: list them)", s.resume},
		"undo":        {"revert the files the last turn changed (again: the turn before)", s.undoLast},
		"permissions": {"show the permission matrix, or switch: /permissions strict|balanced|auto-edit|yolo|build|plan", s.permissions},
		"todos":       {"show the session's todo list", todos},
		"compact":     {"summarise older history now to free context", compact},
		"skills":      {"list the skills the model can load", s.listSkills},
		"diff":        {"show the workspace's changes (git, or this session's snapshots)", s.diff},
	}
	return s
}

// RunCommand implements orchestrator.CommandHandler.
func (s *Set) RunCommand(ctx context.Context, o *orchestrator.Orchestrator, name, args string) (string, error) {
	h, ok := s.table[name]
	if ok {
		return h.run(ctx, o, args)
	}
	if turn, ok := s.custom(name, args); ok {
		return "", turn
	}
	return "", orchestrator.ErrUnknownCommand
}

func (s *Set) help(context.Context, *orchestrator.Orchestrator, string) (string, error) {
	names := make([]string, 0, len(s.table))
	for n := range s.table {
		names = append(names, n)
	}
	sort.Strings(names)
	var b strings.Builder
	b.WriteString("Commands:\n")
	for _, n := range names {
		fmt.Fprintf(&b, "  /%-12s %s\n", n, s.table[n].summary)
	}
	if len(s.Custom) > 0 {
		b.WriteString("Custom commands:\n")
		for _, c := range s.Custom {
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
  Enter          send · paste several lines: shows [copy N lines], Enter sends them
  Tab            on an empty line: switch build/plan mode
  Up/Down        walk this session's inputs
  Esc            while typing: clear the line · while running: stop the model, the tool and every queued step
  Ctrl+C         exit (the session is saved) · Ctrl+D on an empty line: exit
Undo:
  /undo reverts the files the last turn changed with write/edit/patch and with bash
  (the workspace is compared before and after each command), without git.
  Not covered: files outside the workspace, ignored paths (.gitignore, .git),
  files bash changed that are over 1 MiB, and workspaces over 100,000 files.`

func listTools(ctx context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
	o.LoadLazyTools(ctx) // MCP servers' tools appear here too
	var b strings.Builder
	fmt.Fprintf(&b, "Tools in %s mode:\n", o.Agent().Name)
	for _, t := range o.ToolSpecs() {
		desc, _, _ := strings.Cut(t.Description, "\n")
		fmt.Fprintf(&b, "  %-10s %s\n", t.Name, desc)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func (s *Set) model(_ context.Context, o *orchestrator.Orchestrator, args string) (string, error) {
	if args == "" {
		return "model: " + o.Model(), nil
	}
	o.SetModel(args)
	if s.Deps.ProjectConfig == "" {
		return "model: " + args, nil
	}
	if err := config.SaveProjectValue(s.ProjectConfig, []string{"provider", "model"}, args); err != nil {
		return "", fmt.Errorf("model switched to %s for this session, but saving it failed: %w", args, err)
	}
	return fmt.Sprintf("model: %s (saved to %s)", args, s.ProjectConfig), nil
}

func mode(_ context.Context, o *orchestrator.Orchestrator, args string) (string, error) {
	a, ok := o.LookupAgent(strings.TrimSpace(args))
	if !ok {
		return "", fmt.Errorf("unknown mode %q (use build, plan or an agent from agents.definitions)", args)
	}
	o.SetAgent(a)
	return "mode: " + a.Name, nil
}
