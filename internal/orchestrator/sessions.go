package orchestrator

import (
	"context"
	"fmt"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/session"
)

// UsageRecorder is implemented by stores that keep per-call usage rows.
type UsageRecorder interface {
	RecordUsage(ctx context.Context, sessionID string, r session.UsageRecord) error
}

// NewSession starts an empty session (/new). It is saved with its first message.
func (o *Orchestrator) NewSession() *session.Session {
	o.EndSession("clear")
	o.conv.switchTo(session.New(o.opts.Now(), o.model, o.agent.Name))
	o.books.session.reset(nil)
	o.pendingContext = nil
	o.announce(false)
	o.sessionStartHooks(context.Background(), "clear")
	return o.conv.sess
}

// Resume continues s (/resume, --resume, --continue). Tool calls that never
// got a result — the process died between a model call and its tools, or
// during one — get a result saying so (never run, or started with an
// unknown outcome), so the next model call gets a valid and true history;
// the repaired session is saved before anything else happens.
func (o *Orchestrator) Resume(ctx context.Context, s *session.Session) error {
	// Before anything is repaired: a call that has no result may be running
	// in the live process that owns the session.
	if err := o.conv.claim(s); err != nil {
		return err
	}
	repaired, started := session.RepairInterrupted(s)
	o.conv.switchTo(s)
	o.loadSessionSpend(ctx)
	o.conv.setModel(o.model)
	o.conv.setMode(o.agent.Name)
	if repaired > 0 {
		if err := o.conv.save(ctx); err != nil {
			return err
		}
		o.emit(event.Notice{Text: interruptedNotice(repaired, started)})
	}
	o.announce(true)
	o.sessionStartHooks(ctx, "resume")
	return nil
}

// AnnounceSession emits the session the following events belong to, and the
// context figures the prompt shows, and runs the SessionStart hooks
// (source startup, or resume).
func (o *Orchestrator) AnnounceSession(resumed bool) {
	o.announce(resumed)
	o.sessionStartHooks(context.Background(), map[bool]string{false: "startup", true: "resume"}[resumed])
}

func (o *Orchestrator) announce(resumed bool) {
	var names []string
	for _, t := range o.ToolSpecs() {
		names = append(names, t.Name)
	}
	s := o.conv.sess
	o.emit(event.SessionStarted{SessionID: s.ID, Model: o.model, Agent: o.agent.Name, Mode: string(o.agent.Mode),
		Cwd: o.opts.Workspace, Tools: names, Resumed: resumed, Messages: len(s.Messages)})
	o.emitContext()
}

// recordUsage keeps the call's usage row when the store supports it; a
// retried call replaces its row (keyed by run and call index).
func (o *Orchestrator) recordUsage(ctx context.Context, ts *turnState, u session.UsageRecord) error {
	r, ok := o.opts.Persistence.Store.(UsageRecorder)
	if !ok {
		return nil
	}
	u.RunID, u.ModelCall, u.Model, u.At = ts.runID, ts.modelCalls, o.model, o.opts.Now()
	if err := r.RecordUsage(context.WithoutCancel(ctx), o.conv.sess.ID, u); err != nil {
		return &StorageError{Err: err}
	}
	return nil
}

// interruptedNotice tells the person what the last exit cut short.
func interruptedNotice(repaired, started int) string {
	switch {
	case started == 0:
		return plural.Count(repaired, "tool call", "tool calls") + " interrupted by the last exit did not run; the model is told so"
	case started == repaired:
		return plural.Count(started, "tool call", "tool calls") + " had started when the last run ended; the outcome is unknown and the model is told to check before re-running"
	}
	return fmt.Sprintf("the last exit interrupted %s: %d had started (outcome unknown), %d did not run; the model is told so",
		plural.Count(repaired, "tool call", "tool calls"), started, repaired-started)
}
