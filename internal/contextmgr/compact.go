package contextmgr

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/session"
)

// Defaults for a zero Compactor field.
const (
	DefaultRecentMessages = 6
	DefaultThreshold      = 0.8
)

// SummaryTag starts the user message that replaces a compacted history.
const SummaryTag = "[context summary]"

// ErrNothingToCompact: the history is too short to summarise and pruning
// freed nothing.
var ErrNothingToCompact = errors.New("nothing to compact")

// Compactor shrinks a history that no longer fits: first by pruning old tool
// outputs, then by having the model summarise the older part.
type Compactor struct {
	// Provider makes the summary call; give it the retrying provider.
	Provider llm.Provider
	Model    string
	// RecentMessages are kept verbatim (default DefaultRecentMessages).
	RecentMessages int
	// Threshold is the fraction of Limit that triggers compaction (default
	// DefaultThreshold).
	Threshold float64
	// Limit is the model's context window in tokens; 0 means unknown (no
	// automatic compaction, no cap on the summary request).
	Limit int
	// Prune enables dropping old tool outputs before summarising.
	Prune bool
	// Overhead is the size of the system prompt and tool schemas, counted
	// against Limit with the messages.
	Overhead int
	// Instructions are the person's words on what the summary should keep
	// (/compact's arguments); empty for none.
	Instructions string
}

// Pinned is what must survive a compaction unchanged.
type Pinned struct {
	// Rules are re-injected verbatim when set. Leave empty when the rules are
	// in the system prompt (SystemPrompt puts them there): they survive.
	Rules string
	Todos []session.Todo
	// LatestRequest is what the user typed for the current turn, without
	// @path attachments. Empty means the last user message.
	LatestRequest string
}

// Result is a compacted history.
type Result struct {
	Messages                  []chat.Message
	TokensBefore, TokensAfter int
	// Summary is the model's summary; empty when pruning was enough.
	Summary string
	// Pruned reports that old tool outputs were dropped.
	Pruned bool
	// Usage is the summary call's usage (zero without one).
	Usage chat.Usage
}

// ShouldCompact reports whether tokens exceed threshold × limit. A limit of 0
// (unknown) never triggers; a threshold outside (0, 1] means the default.
func ShouldCompact(tokens, limit int, threshold float64) bool {
	if limit <= 0 {
		return false
	}
	if threshold <= 0 || threshold > 1 {
		threshold = DefaultThreshold
	}
	return float64(tokens) > threshold*float64(limit)
}

// Compact prunes msgs and, when that is not enough to get under the
// threshold, summarises the older part. See CompactNow to always summarise.
func (c *Compactor) Compact(ctx context.Context, msgs []chat.Message, pinned Pinned) (Result, error) {
	return c.compact(ctx, msgs, pinned, false)
}

// CompactNow always summarises (after pruning): for /compact, and for the
// retry after the provider rejected a request as too long, where the
// estimate has just been proved wrong.
func (c *Compactor) CompactNow(ctx context.Context, msgs []chat.Message, pinned Pinned) (Result, error) {
	return c.compact(ctx, msgs, pinned, true)
}

func (c *Compactor) compact(ctx context.Context, msgs []chat.Message, pinned Pinned, force bool) (Result, error) {
	res := Result{TokensBefore: c.size(msgs), Messages: msgs}
	if c.Prune {
		pruned, saved := Prune(msgs, c.recent())
		res.Pruned = saved > 0
		res.Messages = pruned
	}
	res.TokensAfter = c.size(res.Messages)
	if !force && res.Pruned && !ShouldCompact(res.TokensAfter, c.Limit, c.Threshold) {
		return res, nil
	}
	// The summariser reads the original outputs (cut to a few lines each),
	// not the stubs; the kept messages are recent, so pruning left them as is.
	old, kept := c.split(msgs)
	if len(old) == 0 {
		if res.Pruned {
			return res, nil
		}
		return res, ErrNothingToCompact
	}
	if pinned.LatestRequest == "" {
		pinned.LatestRequest = latestRequest(msgs)
	}
	summary, usage, err := c.Summarize(ctx, old, pinned)
	res.Usage = usage
	if err != nil {
		return res, err
	}
	res.Summary = summary
	res.Messages = withSummary(summaryMessage(summary, pinned, kept), kept)
	res.TokensAfter = c.size(res.Messages)
	return res, nil
}

func (c *Compactor) size(msgs []chat.Message) int { return c.Overhead + Estimate("", msgs, nil) }

func (c *Compactor) recent() int {
	if c.RecentMessages > 0 {
		return c.RecentMessages
	}
	return DefaultRecentMessages
}

// split is Split with fewer recent messages when the recent ones alone would
// take more than a third of the limit (a huge tool output among them).
func (c *Compactor) split(msgs []chat.Message) (old, kept []chat.Message) {
	recent := c.recent()
	old, kept = Split(msgs, recent)
	for c.Limit > 0 && len(kept) > 1 && Estimate("", kept, nil) > c.Limit/3 {
		recent = len(kept) / 2
		o, k := Split(msgs, recent)
		if len(k) >= len(kept) {
			break // a call and its results cannot be split further
		}
		old, kept = o, k
	}
	return old, kept
}

// Split keeps the last recent messages verbatim and returns the rest as old.
// The boundary moves earlier so that kept never starts with a tool result:
// an assistant message and the results of its calls stay on one side, as
// providers reject a result without its call.
func Split(msgs []chat.Message, recent int) (old, kept []chat.Message) {
	b := max(len(msgs)-max(recent, 0), 0)
	for b > 0 && b < len(msgs) && msgs[b].Role == chat.RoleTool {
		b--
	}
	return msgs[:b:b], msgs[b:]
}

// prunedFormat is the stub left in place of an old tool output.
const prunedFormat = "[output pruned: %d bytes; re-run the tool if needed]"

// pruneMin is the smallest output worth pruning: below it the stub saves
// next to nothing and the output (an "ok", a short error) is worth keeping.
const pruneMin = 512

// Prune replaces the bodies of tool outputs older than the last keepRecent
// messages with a short stub. The messages stay, so every call keeps its
// result. saved is the estimated number of tokens freed. msgs is not
// modified.
func Prune(msgs []chat.Message, keepRecent int) (out []chat.Message, saved int) {
	out = slices.Clone(msgs)
	for i := range len(out) - max(keepRecent, 0) {
		m := &out[i]
		if m.Role != chat.RoleTool || len(m.Content) < pruneMin || strings.HasPrefix(m.Content, "[output pruned:") {
			continue
		}
		stub := fmt.Sprintf(prunedFormat, len(m.Content))
		saved += EstimateText(m.Content) - EstimateText(stub)
		m.Content = stub
	}
	return out, saved
}

// latestRequest is the last user message that is not a summary.
func latestRequest(msgs []chat.Message) string {
	for i := len(msgs) - 1; i >= 0; i-- {
		if m := msgs[i]; m.Role == chat.RoleUser && !strings.HasPrefix(m.Content, SummaryTag) {
			return m.Content
		}
	}
	return ""
}

// maxPinnedRequest caps the re-injected request; a longer one is a paste,
// and its head says what was asked.
const maxPinnedRequest = 8 << 10

// summaryMessage is the user message that opens the compacted history: the
// summary, then everything pinned, so the rules, the todo list and the
// latest request are in view again. The request is left out when a kept
// message already holds it verbatim.
func summaryMessage(summary string, p Pinned, kept []chat.Message) string {
	var b strings.Builder
	b.WriteString(SummaryTag + "\nThe earlier conversation was compacted. Summary:\n\n")
	b.WriteString(strings.TrimSpace(summary))
	if r := strings.TrimSpace(p.LatestRequest); r != "" && !keptHas(kept, r) {
		b.WriteString("\n\n## Latest user request (verbatim)\n")
		b.WriteString(truncateMiddle(r, maxPinnedRequest))
	}
	if len(p.Todos) > 0 {
		b.WriteString("\n\n## Todo list (current)\n")
		b.WriteString(session.FormatTodos(p.Todos))
	}
	if r := strings.TrimSpace(p.Rules); r != "" {
		b.WriteString("\n\n## Rules (still apply)\n" + r)
	} else {
		b.WriteString("\n\nThe project rules in the system prompt still apply.")
	}
	b.WriteString("\n\nContinue the task from here; do not redo finished work.")
	return b.String()
}

func keptHas(kept []chat.Message, request string) bool {
	for _, m := range kept {
		if m.Role == chat.RoleUser && strings.Contains(m.Content, request) {
			return true
		}
	}
	return false
}

// withSummary puts the summary message before kept. When kept starts with a
// user message the two are merged, so roles still alternate.
func withSummary(summary string, kept []chat.Message) []chat.Message {
	out := make([]chat.Message, 0, len(kept)+1)
	if len(kept) > 0 && kept[0].Role == chat.RoleUser {
		first := kept[0]
		first.Content = summary + "\n\n---\n\n" + first.Content
		return append(append(out, first), kept[1:]...)
	}
	return append(append(out, chat.Message{Role: chat.RoleUser, Content: summary}), kept...)
}
