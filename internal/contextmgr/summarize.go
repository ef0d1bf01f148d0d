package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/session"
)

// summarizerPrompt is the system prompt of the summary call. The sections
// are the ones users miss after a compaction: their own words, what was
// decided, where things are, and what is left.
const summarizerPrompt = `You compact the history of a coding agent's session so the agent can continue without it. Write a Markdown summary with these sections:
## Goal
## User requests
Every request, in order; verbatim when short.
## Decisions
What was chosen and why; approaches rejected.
## Files touched
Path and what changed or why it matters.
## Commands run and results
Command and the outcome that matters (pass/fail, key error lines).
## Open todos
## Next step
Keep names, paths, errors and numbers exact. Drop what no longer matters. Fold any earlier [context summary] in. Write in the user's language.`

// Limits on each rendered part of the transcript sent to the summariser.
const (
	maxRenderUser      = 8 << 10
	maxRenderAssistant = 4 << 10
	maxRenderArgs      = 600
	maxRenderTool      = 1500
)

// Summarize asks the model, in one call, for a structured summary of old.
// The pinned request and todos are given as context so "Next step" and
// "Open todos" agree with them. With a known Limit the transcript is cut to
// half of it, oldest messages first (the first user message, usually the
// goal, is kept), so the summary request itself cannot overflow.
func (c *Compactor) Summarize(ctx context.Context, old []chat.Message, pinned Pinned) (string, chat.Usage, error) {
	if c.Provider == nil {
		return "", chat.Usage{}, errors.New("compact: no provider for the summary")
	}
	budget := 0
	if c.Limit > 0 {
		// A floor keeps a tiny Limit from meaning "no limit" (budget 0).
		budget = max(c.Limit/2-EstimateText(summarizerPrompt)-EstimateText(pinned.LatestRequest)-200, 500)
	}
	var b strings.Builder
	b.WriteString("<transcript>\n")
	b.WriteString(fitParts(renderParts(old), budget))
	b.WriteString("</transcript>\n")
	if r := strings.TrimSpace(pinned.LatestRequest); r != "" {
		b.WriteString("\nThe user's latest request:\n" + truncateMiddle(r, maxPinnedRequest) + "\n")
	}
	if len(pinned.Todos) > 0 {
		b.WriteString("\nCurrent todo list:\n" + session.FormatTodos(pinned.Todos) + "\n")
	}
	if in := strings.TrimSpace(c.Instructions); in != "" {
		b.WriteString("\nThe user's instructions for this summary (follow them):\n" + truncateMiddle(in, maxPinnedRequest) + "\n")
	}
	b.WriteString("\nWrite the summary now.")

	req := llm.Request{
		Model:    c.Model,
		System:   summarizerPrompt,
		Messages: []chat.Message{{Role: chat.RoleUser, Content: b.String()}},
	}
	var acc llm.Accumulator
	if err := c.Provider.Stream(ctx, req, func(d chat.MessageDelta) { acc.Add(d) }); err != nil {
		return "", acc.Usage(), fmt.Errorf("compact: summary call: %w", err)
	}
	summary := strings.TrimSpace(acc.Text())
	if summary == "" {
		return "", acc.Usage(), errors.New("compact: the model returned an empty summary")
	}
	return summary, acc.Usage(), nil
}

// renderParts renders each message as a short labelled block. Reasoning is
// left out: the text and the calls carry what was decided.
func renderParts(msgs []chat.Message) []string {
	parts := make([]string, 0, len(msgs))
	for _, m := range msgs {
		var b strings.Builder
		switch m.Role {
		case chat.RoleUser:
			content := m.Content
			if !strings.HasPrefix(content, SummaryTag) {
				content = truncateMiddle(content, maxRenderUser)
			}
			b.WriteString("[user]\n" + strings.TrimSpace(content))
		case chat.RoleAssistant:
			if t := strings.TrimSpace(m.Content); t != "" {
				b.WriteString("[assistant]\n" + truncateMiddle(t, maxRenderAssistant))
			}
			for _, tc := range m.ToolCalls {
				if b.Len() > 0 {
					b.WriteString("\n")
				}
				fmt.Fprintf(&b, "[assistant called %s] %s", tc.Name, truncateMiddle(tc.Arguments, maxRenderArgs))
			}
		case chat.RoleTool:
			name, label := m.ToolName, "result"
			if name == "" {
				name = "tool"
			}
			if m.IsError {
				label = "error"
			}
			fmt.Fprintf(&b, "[%s %s]\n%s", name, label, strings.TrimSpace(truncateMiddle(m.Content, maxRenderTool)))
		}
		if b.Len() > 0 {
			parts = append(parts, b.String())
		}
	}
	return parts
}

// fitParts joins parts within budget tokens (0: no limit). Past the budget
// it keeps the first part (the opening request) and as many of the newest
// as fit, and says how many were left out.
func fitParts(parts []string, budget int) string {
	total := 0
	for _, p := range parts {
		total += EstimateText(p)
	}
	if budget <= 0 || total <= budget || len(parts) == 0 {
		return joinParts(parts)
	}
	first := parts[0]
	if n := EstimateText(first); n > budget/4 {
		first = truncateMiddle(first, budget) // ~4 bytes a token: a quarter of the budget
	}
	used := EstimateText(first)
	start := len(parts)
	for start > 1 && used+EstimateText(parts[start-1]) <= budget {
		start--
		used += EstimateText(parts[start])
	}
	kept := []string{first}
	if start > 1 {
		kept = append(kept, fmt.Sprintf("[… %d messages omitted to fit …]", start-1))
	}
	return joinParts(append(kept, parts[start:]...))
}

func joinParts(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	return strings.Join(parts, "\n\n") + "\n"
}
