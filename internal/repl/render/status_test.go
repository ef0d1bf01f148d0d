package render

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/style"
)

// The status line follows the turn: what happens, the time, the tokens.
func TestStatusLine(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStatus(style.Style{}, func() time.Time { return now })
	if s.line(80) != "" {
		t.Fatal("a status line before the turn")
	}
	s.begin()
	s.event(event.StateChanged{To: event.StateModelRunning})
	now = now.Add(3 * time.Second)
	if l := s.line(80); !strings.Contains(l, "waiting for the model · 3s · esc to stop") {
		t.Fatalf("%q", l)
	}
	s.event(event.TextDelta{Text: strings.Repeat("x", 400)})
	s.event(event.AssistantMessage{Usage: chat.Usage{OutputTokens: 120}})
	s.event(event.ToolStarted{Name: "bash", ToolKind: "execute", Summary: "go test ./..."})
	now = now.Add(62 * time.Second)
	if l := s.line(80); !strings.Contains(l, "running go test ./... · 1m 05s · 120 tokens · esc to stop") {
		t.Fatalf("%q", l)
	}
	s.event(event.Progress{Phase: event.PhaseRetrying, Delay: 4 * time.Second, Attempt: 2})
	if l := s.line(80); !strings.Contains(l, "retrying in 4s (attempt 2)") {
		t.Fatalf("%q", l)
	}
	s.event(event.Progress{Phase: event.PhaseVerifying, Detail: "go test ./..."})
	now = now.Add(5 * time.Second)
	s.event(event.ToolStarted{Name: "bash", ToolKind: "execute", Summary: "go test ./..."})
	if l := s.line(80); !strings.Contains(l, "verifying: go test ./...") {
		t.Fatalf("%q", l)
	}
	s.event(event.StateChanged{To: event.StateModelRunning})
	s.event(event.ToolStarted{Name: "read", ToolKind: "read", Summary: "calc.go"})
	if l := s.line(80); !strings.Contains(l, "read calc.go") {
		t.Fatalf("the verify label outlived the verification: %q", l)
	}
	if l := s.line(30); style.Width(l) > 30 {
		t.Fatalf("%q is wider than 30", l)
	}
	s.end()
	if s.line(80) != "" {
		t.Fatal("the status line outlived the turn")
	}
}
