// Package contextmgr assembles what the model sees: the system prompt, and
// (later) rules, reminders, @file expansion and compaction. It also estimates
// token counts when the provider has not reported them.
package contextmgr

import (
	"fmt"
	"strings"
	"time"
)

// Env is everything volatile the system prompt depends on, injected so the
// prompt is deterministic in tests.
type Env struct {
	AgentPrompt string
	Cwd         string
	OS          string
	Date        time.Time
	Model       string
}

// SystemPrompt builds the system prompt. The stable part (agent prompt) comes
// first and the environment last, so the request prefix caches well.
func SystemPrompt(e Env) string {
	var b strings.Builder
	b.WriteString(strings.TrimSpace(e.AgentPrompt))
	b.WriteString("\n\n# Environment\n")
	fmt.Fprintf(&b, "- working directory: %s\n", e.Cwd)
	if e.OS != "" {
		fmt.Fprintf(&b, "- platform: %s\n", e.OS)
	}
	if !e.Date.IsZero() {
		fmt.Fprintf(&b, "- date: %s\n", e.Date.Format("2006-01-02"))
	}
	return b.String()
}
