package repl

import (
	"sync"

	"github.com/coder-agent/coder/internal/event"
)

// promptFacts is what the prompt shows, as the events last told it.
type promptFacts struct {
	Agent, Model, Cwd string
	Tokens, Limit     int
	SessionID         string
	// Used: the session holds messages (so it is worth resuming).
	Used bool
}

// promptState is the one owner of the prompt's facts: the REPL derives
// them from the events it passes on to the renderer (Emit), and the input
// loop reads them. Events arrive on the core's goroutines, hence the lock.
type promptState struct {
	mu    sync.Mutex
	facts promptFacts
}

func (p *promptState) get() promptFacts {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.facts
}

func (p *promptState) observe(e event.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := &p.facts
	switch e := e.(type) {
	case event.SessionStarted:
		f.Agent, f.Model, f.Cwd = e.Agent, e.Model, e.Cwd
		f.SessionID, f.Used = e.SessionID, e.Messages > 0
	case event.ModeChanged:
		f.Agent = e.Agent
	case event.ModelChanged:
		f.Model = e.Model
	case event.ContextUpdated:
		f.Tokens, f.Limit = e.Tokens, e.Limit
	case event.UserMessage, event.AssistantMessage, event.TurnFinished:
		f.Used = true
	case event.CommandOutput:
		if e.Block == "COMMAND" {
			f.Used = true
		}
	}
}

// Emit implements event.Sink: the prompt takes its facts from the events,
// the renderer draws them.
func (r *REPL) Emit(e event.Event) {
	r.prompt.observe(e)
	r.o.Renderer.Emit(e)
}
