package render

import (
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/style"
)

// The status line shows the session's cost once a call was priced, and
// keeps it from one turn to the next.
func TestStatusLineShowsTheSessionCost(t *testing.T) {
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	s := newStatus(style.Style{}, func() time.Time { return now })
	s.begin()
	if l := s.line(100); strings.Contains(l, "$") {
		t.Fatalf("a cost before any call: %q", l)
	}
	s.event(event.UsageUpdated{CostUSD: 0.01234, CostKnown: true})
	if l := s.line(100); !strings.Contains(l, "$0.0123 · esc to stop") {
		t.Fatalf("%q", l)
	}
	s.end()
	s.begin()
	if l := s.line(100); !strings.Contains(l, "$0.0123") {
		t.Fatalf("the next turn lost the session's cost: %q", l)
	}
	s.event(event.UsageUpdated{CostUSD: 0.02, CostKnown: false})
	if l := s.line(100); !strings.Contains(l, "≥ $0.0200") {
		t.Fatalf("a partly priced session: %q", l)
	}
}

func TestTokens(t *testing.T) {
	if tokens(950) != "950" || tokens(1200) != "1.2k" || tokens(12345) != "12k" || tokens(128000) != "128k" || tokens(1500000) != "1.5M" {
		t.Fatal("tokens")
	}
}
