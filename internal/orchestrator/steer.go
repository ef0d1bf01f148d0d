package orchestrator

import (
	"context"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/tools"
)

// Inbox holds the messages a person sent while a turn was running. Take
// hands over those that may join the turn now and forgets them; what it
// keeps (commands, say) is the front end's to run after the turn.
type Inbox interface {
	Take() []string
}

// deliverInbox appends the messages waiting in the inbox to the history
// before a model call, so the model reads them in this turn (steering). Each
// is shown in the stream as it joins.
func (o *Orchestrator) deliverInbox(ctx context.Context) error {
	if o.opts.Front.Inbox == nil {
		return nil
	}
	for _, text := range o.opts.Front.Inbox.Take() {
		if text = strings.TrimSpace(text); text == "" {
			continue
		}
		expanded, _, missing := contextmgr.ExpandAtRefs(text, o.opts.Workspace, contextmgr.AtLimits{})
		for _, m := range missing {
			o.emit(event.Notice{Text: "not attached: @" + m})
		}
		if err := o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: expanded}); err != nil {
			return err
		}
		o.conv.latestInput = text
		o.emit(event.UserMessage{Text: text})
		o.emitContext()
	}
	return nil
}

// liveOutputLimit bounds what one call reports live; the model's result has
// its own cap (safety.output_limit_bytes).
const liveOutputLimit = 16 << 20

// liveOutput reports what a running command writes as ToolOutput events,
// with secrets redacted even when split across writes, and the front end's
// terminal it runs in, if a launcher put it in one (ToolTerminal); flush
// sends what was held back once the command has ended.
func (o *Orchestrator) liveOutput(ctx context.Context, c *tools.Call) (_ context.Context, flush func()) {
	var mu sync.Mutex
	var sent int64
	streams := map[string]*secrets.Stream{}
	send := func(stream, text string) {
		if text == "" || sent > liveOutputLimit {
			return
		}
		sent += int64(len(text))
		o.emit(event.ToolOutput{CallID: c.ID, Name: c.Name, Stream: stream, Text: text})
	}
	ctx = tools.WithTerminal(ctx, func(id string) {
		o.emit(event.ToolTerminal{CallID: c.ID, Name: c.Name, TerminalID: id})
	})
	ctx = tools.WithOutput(ctx, func(stream string, p []byte) {
		mu.Lock()
		defer mu.Unlock()
		st := streams[stream]
		if st == nil {
			st = o.opts.Secrets.Stream()
			streams[stream] = st
		}
		send(stream, st.Write(string(p)))
	})
	return ctx, func() {
		mu.Lock()
		defer mu.Unlock()
		for _, name := range []string{"stdout", "stderr"} {
			if st := streams[name]; st != nil {
				send(name, st.Flush())
			}
		}
	}
}
