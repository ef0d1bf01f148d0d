package orchestrator

import (
	"context"
	"slices"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/session"
)

// conversation owns the session. Every change to it goes through these
// methods, which keep what is derived from it right — the context figure's
// inputs, the unsaved flag — and save it at the key points (a message
// appended, the history replaced). Nothing else writes to the session.
type conversation struct {
	sess  *session.Session
	store Checkpointer // nil: memory only
	now   func() time.Time

	mu    sync.Mutex // usage: subagents finish concurrently
	dirty bool       // changed since saved, other than by an append

	// counted is the usage the provider reported for the last model call
	// and how many messages existed then; the context figure is that plus
	// an estimate of what came after.
	counted     chat.Usage
	countedUpTo int
	compacted   bool // this model call already compacted (no second summary)
	est         historyCache
	latestInput string // the latest request, pinned through compaction
}

// historyCache is the estimated size of the whole history, extended as
// messages are appended: messages do not change once added, and
// re-estimating a long history on every context update cost milliseconds.
type historyCache struct {
	sess       *session.Session
	generation int
	count      int
	tokens     int
}

func newConversation(s *session.Session, store Checkpointer, now func() time.Time) *conversation {
	return &conversation{sess: s, store: store, now: now}
}

// messages is the history; callers must not modify it.
func (c *conversation) messages() []chat.Message { return c.sess.Messages }

// append adds a message and saves it.
func (c *conversation) append(ctx context.Context, m chat.Message) error {
	c.sess.Messages = append(c.sess.Messages, m)
	c.sess.Updated = c.now()
	return c.save(ctx)
}

// replace swaps the whole history (compaction, a rebuilt context): the
// store rewrites its rows, the context figures start afresh, and the
// result is saved.
func (c *conversation) replace(ctx context.Context, msgs []chat.Message, compacted bool) error {
	c.sess.Messages = msgs
	c.sess.Generation++
	c.sess.Updated = c.now()
	c.counted, c.countedUpTo, c.compacted = chat.Usage{}, 0, compacted
	return c.save(ctx)
}

// claim makes this process the owner of s (a store without owners:
// nothing to do); an error names the live process that owns it.
func (c *conversation) claim(s *session.Session) error {
	if ow, ok := c.store.(Owner); ok {
		return ow.Claim(s.ID)
	}
	return nil
}

// switchTo makes s, claimed, the session (/new, /resume, --continue), and
// gives up the one left.
func (c *conversation) switchTo(s *session.Session) {
	if ow, ok := c.store.(Owner); ok && c.sess != nil && c.sess.ID != s.ID {
		ow.Release(c.sess.ID)
	}
	c.sess = s
	c.counted, c.countedUpTo, c.compacted = chat.Usage{}, 0, false
	c.latestInput = ""
}

// modelCounted records the provider's usage for the call that produced the
// latest message.
func (c *conversation) modelCounted(u chat.Usage) {
	c.counted, c.countedUpTo = u, len(c.sess.Messages)
	c.compacted = false
}

// promptChanged forgets the provider's count: the system prompt or the tool
// list changed, so the next figure is estimated afresh.
func (c *conversation) promptChanged() { c.counted, c.countedUpTo = chat.Usage{}, 0 }

func (c *conversation) setTitle(input string) {
	if c.sess.Title == "" {
		c.sess.Title = session.TitleFrom(input)
		c.dirty = true
	}
}

func (c *conversation) setMode(name string) { c.sess.Mode, c.dirty = name, true }

func (c *conversation) setModel(m string) { c.sess.Model, c.dirty = m, true }

func (c *conversation) setTodos(todos []session.Todo) { c.sess.Todos, c.dirty = todos, true }

func (c *conversation) todos() []session.Todo { return c.sess.Todos }

// addUsage adds a model call's usage to the session total.
func (c *conversation) addUsage(u chat.Usage) {
	c.mu.Lock()
	c.sess.Usage.Add(u)
	c.dirty = true
	c.mu.Unlock()
}

// recordSubagent keeps a subagent's run in the session, beside (never in)
// its messages, and stores it at once: subagents run concurrently, and
// what one did must survive a crash or a stop half way. The session's
// snapshot gets it at the parent's next save.
func (c *conversation) recordSubagent(ctx context.Context, run session.SubagentRun) error {
	c.mu.Lock()
	if i := slices.IndexFunc(c.sess.Subagents, func(r session.SubagentRun) bool { return r.RunID == run.RunID }); i >= 0 {
		c.sess.Subagents[i] = run
	} else {
		c.sess.Subagents = append(c.sess.Subagents, run)
	}
	c.dirty = true
	id := c.sess.ID
	c.mu.Unlock()
	sc, ok := c.store.(SubagentCheckpointer)
	if !ok {
		return nil
	}
	if err := sc.CheckpointSubagent(context.WithoutCancel(ctx), id, run); err != nil {
		return &StorageError{Err: err}
	}
	return nil
}

func (c *conversation) usage() chat.Usage {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess.Usage
}

// tokens is the size of what the next model call would send: the
// provider's count for the last call plus an estimate of what came after,
// or, with no count, overhead (system prompt and tools) plus the history.
func (c *conversation) tokens(overhead func() int) int {
	msgs := c.sess.Messages
	if c.counted.IsZero() || c.countedUpTo > len(msgs) {
		return overhead() + c.historyEstimate()
	}
	u := c.counted
	return u.PromptTokens() + u.OutputTokens + contextmgr.Estimate("", msgs[c.countedUpTo:], nil)
}

func (c *conversation) historyEstimate() int {
	e, msgs := &c.est, c.sess.Messages
	if e.sess != c.sess || e.generation != c.sess.Generation || e.count > len(msgs) {
		*e = historyCache{sess: c.sess, generation: c.sess.Generation}
	}
	e.tokens += contextmgr.Estimate("", msgs[e.count:], nil)
	e.count = len(msgs)
	return e.tokens
}

// save writes the session when a store is configured. A cancelled run still
// records what happened: the write is not cancelled.
func (c *conversation) save(ctx context.Context) error {
	if c.store == nil {
		c.dirty = false
		return nil
	}
	if err := c.store.Checkpoint(context.WithoutCancel(ctx), c.sess); err != nil {
		return &StorageError{Err: err}
	}
	c.dirty = false
	return nil
}

// startRecorder is a store that records a tool call's start before it
// runs (session.Store.MarkStarted).
type startRecorder interface {
	MarkStarted(ctx context.Context, sessionID, callID string) error
}

// markStarted records that call id is about to run, so a crash before its
// result is stored is told apart from a call that never ran.
func (c *conversation) markStarted(ctx context.Context, callID string) error {
	sr, ok := c.store.(startRecorder)
	if !ok {
		return nil
	}
	if err := sr.MarkStarted(context.WithoutCancel(ctx), c.sess.ID, callID); err != nil {
		return &StorageError{Err: err}
	}
	return nil
}

// saveIfChanged saves what changed besides appended messages (usage,
// todos, mode, model), which are saved as they are appended.
func (c *conversation) saveIfChanged(ctx context.Context) error {
	if !c.dirty {
		return nil
	}
	return c.save(ctx)
}

// StorageError is a failed session write; the run stops at once.
type StorageError struct{ Err error }

func (e *StorageError) Error() string { return "session could not be saved: " + e.Err.Error() }
func (e *StorageError) Unwrap() error { return e.Err }
