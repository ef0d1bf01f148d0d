package orchestrator

import (
	"sync"

	"github.com/coder-agent/coder/internal/agent"
)

// agentRequest is an agent a front end asked for while an input runs (an
// editor's mode switch): the turn takes it before its next model call.
type agentRequest struct {
	mu sync.Mutex
	a  *agent.Agent
}

// RequestAgent asks for agent a from the next model call on. Unlike
// SetAgent it is safe while a turn runs: the turn switches before its next
// model call (the calls of the message being worked on keep the mode they
// were admitted in). What no model call took by the end of the input is the
// front end's to apply with ApplyRequestedAgent.
func (o *Orchestrator) RequestAgent(a agent.Agent) {
	o.requested.mu.Lock()
	o.requested.a = &a
	o.requested.mu.Unlock()
}

// ApplyRequestedAgent switches to the agent last requested, if any; not
// while an input runs.
func (o *Orchestrator) ApplyRequestedAgent() {
	o.requested.mu.Lock()
	a := o.requested.a
	o.requested.a = nil
	o.requested.mu.Unlock()
	if a != nil && (a.Name != o.agent.Name || a.Mode != o.agent.Mode) {
		o.SetAgent(*a)
	}
}
