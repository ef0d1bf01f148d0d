package mcpserve

import (
	"context"
	"fmt"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/event"
)

// progress turns a turn's events into MCP progress notifications, for a
// caller that asked for them (a progress token): one per model call, tool
// call and the end, each with what is happening in a few words.
type progress struct {
	ctx   context.Context
	ss    *mcp.ServerSession
	token any

	mu    sync.Mutex
	count float64
}

// newProgress is the sink of one call's turn; it drops everything when the
// caller sent no progress token.
func newProgress(ctx context.Context, req *mcp.CallToolRequest) event.Sink {
	if req == nil || req.Session == nil || req.Params == nil || req.Params.GetProgressToken() == nil {
		return event.Discard
	}
	return &progress{ctx: ctx, ss: req.Session, token: req.Params.GetProgressToken()}
}

// Emit implements event.Sink.
func (p *progress) Emit(e event.Event) {
	msg := progressMessage(e)
	if msg == "" {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count++
	// A caller that went away is the turn's cancellation, not this sink's.
	_ = p.ss.NotifyProgress(p.ctx, &mcp.ProgressNotificationParams{ProgressToken: p.token, Progress: p.count, Message: msg})
}

// progressMessage is what an event says to a caller waiting for the
// turn, "" for events it need not hear about.
func progressMessage(e event.Event) string {
	switch e := e.(type) {
	case event.SessionStarted:
		return "session " + e.SessionID + " in " + e.Cwd
	case event.StateChanged:
		if e.To == event.StateModelRunning {
			return "thinking"
		}
	case event.ToolStarted:
		return "running " + oneLine(e.Name+" "+e.Summary)
	case event.ToolFinished:
		status := "ok"
		if !e.OK {
			status = "failed"
		}
		return fmt.Sprintf("%s: %s", e.Name, status)
	case event.Subagent:
		if m := progressMessage(e.Event); m != "" && m != "thinking" {
			return "[" + e.Agent + "] " + m
		}
	case event.Compacted:
		return "context compacted"
	case event.TurnFinished:
		return "turn " + string(e.State)
	}
	return ""
}

// oneLine is s up to its first line break, at most 100 bytes.
func oneLine(s string) string {
	for i, r := range s {
		if r == '\n' || i >= 100 {
			return s[:i] + "…"
		}
	}
	return s
}
