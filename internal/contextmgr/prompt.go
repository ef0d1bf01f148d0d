// Package contextmgr decides what the model sees: the system prompt (agent
// prompt, rules files, skills, environment), reminders, @path attachments,
// token accounting and compaction of a long history.
package contextmgr

import (
	"fmt"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/agent"
)

// Env is everything the system prompt depends on. Every volatile input is
// injected, so the prompt is a pure function of Env and golden-testable.
type Env struct {
	AgentPrompt string
	// Mode is the active agent's mode; plan adds the plan-mode section.
	Mode  agent.Mode
	Cwd   string
	OS    string
	Date  time.Time
	Model string
	// Git is a one-line summary (see GitSummary); empty outside a repository.
	// Take it once per session, not per call: it sits before the whole
	// history in every request, so each change invalidates the prompt cache.
	Git string
	// Rules are the rules files, from LoadRules.
	Rules []RulesFile
	// Skills are listed by name; the skill tool loads one in full.
	Skills []SkillInfo
}

// SkillInfo is what the system prompt shows of a skill.
type SkillInfo struct {
	Name        string
	Description string
}

// maxSkillDescription caps one skill's line: the list is paid for on every
// request, the skill tool gives the rest.
const maxSkillDescription = 160

// SystemPrompt builds the system prompt. Stable parts come first and volatile
// ones last (agent prompt, rules, skills, then environment and mode), so a
// provider's prefix cache keeps as much as possible when something changes.
func SystemPrompt(e Env) string {
	sections := []string{
		strings.TrimSpace(e.AgentPrompt),
		rulesSection(e.Rules),
		skillsSection(e.Skills),
		envSection(e),
	}
	if e.Mode == agent.Plan {
		sections = append(sections, "# Plan mode\nChange nothing (edit tools are off, bash is read-only). "+
			"When the plan is ready, call exit_plan_mode for the user's approval.")
	}
	var b strings.Builder
	for _, s := range sections {
		if s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteString("\n\n")
		}
		b.WriteString(s)
	}
	b.WriteString("\n")
	return b.String()
}

func skillsSection(skills []SkillInfo) string {
	if len(skills) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Skills\nLoad one with the skill tool when the task matches it.")
	for _, s := range skills {
		d := truncateRunes(strings.Join(strings.Fields(s.Description), " "), maxSkillDescription)
		if d == "" {
			fmt.Fprintf(&b, "\n- %s", s.Name)
			continue
		}
		fmt.Fprintf(&b, "\n- %s: %s", s.Name, d)
	}
	return b.String()
}

func envSection(e Env) string {
	var b strings.Builder
	b.WriteString("# Environment")
	line := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, "\n- %s: %s", k, v)
		}
	}
	line("working directory", e.Cwd)
	line("platform", e.OS)
	line("model", e.Model)
	if !e.Date.IsZero() {
		// The date only: a clock time would change the prompt every minute.
		line("date", e.Date.Format("2006-01-02"))
	}
	line("git", e.Git)
	return b.String()
}

// GitSummary formats Env.Git: the branch and how many files differ from HEAD
// (staged, unstaged or untracked). An empty branch is a detached HEAD.
func GitSummary(branch string, changed int) string {
	if branch == "" {
		branch = "detached HEAD"
	}
	switch changed {
	case 0:
		return branch + ", clean"
	case 1:
		return branch + ", 1 changed file"
	}
	return fmt.Sprintf("%s, %d changed files", branch, changed)
}
