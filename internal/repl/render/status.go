package render

import (
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/repl/style"
	"github.com/coder-agent/coder/internal/termsafe"
)

// status is the live status line under the stream while a turn runs: what
// is happening, for how long, how many tokens came back, and how to stop
// it. It is derived from the events; the REPL redraws it at most ten
// times a second and never lets it into the scrollback.
type status struct {
	mu      sync.Mutex
	st      style.Style
	now     func() time.Time
	active  bool
	started time.Time

	phase      string
	verifying  string // the verify command while auto-verify runs
	retryUntil time.Time
	attempt    int

	outTokens int // output tokens of this turn's finished model calls
	streamed  int // bytes streamed by the current call
	frame     int
	cost      string // the session's, kept from turn to turn (costFigure)
}

func newStatus(st style.Style, now func() time.Time) *status {
	return &status{st: st, now: now}
}

// begin starts the line for a turn; end removes it.
func (s *status) begin() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.active, s.started, s.phase = true, s.now(), "working"
	s.verifying, s.retryUntil, s.attempt = "", time.Time{}, 0
	s.outTokens, s.streamed = 0, 0
}

func (s *status) end() {
	s.mu.Lock()
	s.active = false
	s.mu.Unlock()
}

func (s *status) event(e event.Event) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return
	}
	switch e := e.(type) {
	case event.StateChanged:
		switch e.To {
		case event.StateModelRunning:
			s.phase, s.streamed, s.retryUntil = "waiting for the model", 0, time.Time{}
			s.verifying = "" // a verification ends where the next model call begins
		case event.StateAwaitingHuman:
			s.phase = "waiting for your answer"
		}
	case event.ReasoningDelta:
		s.phase, s.retryUntil = "thinking", time.Time{}
		s.streamed += len(e.Text)
	case event.TextDelta:
		s.phase, s.retryUntil = "streaming", time.Time{}
		s.streamed += len(e.Text)
	case event.UsageUpdated:
		s.cost = costFigure(e)
	case event.AssistantMessage:
		s.outTokens += e.Usage.OutputTokens
		s.streamed = 0
		s.phase = "working"
	case event.ToolStarted:
		s.phase = toolPhase(e)
	case event.ToolFinished:
		s.phase = "working"
	case event.Progress:
		switch e.Phase {
		case event.PhaseCompacting:
			s.phase = "compacting the history"
		case event.PhaseVerifying:
			s.verifying = e.Detail
		case event.PhaseRetrying:
			s.retryUntil, s.attempt = s.now().Add(e.Delay), e.Attempt
		}
	case event.Subagent:
		if in, ok := e.Event.(event.ToolStarted); ok {
			s.phase = "task " + e.ID + ": " + toolPhase(in)
		}
	}
}

func toolPhase(e event.ToolStarted) string {
	if e.ToolKind == chat.ToolExecute {
		return "running " + termsafe.Visible(e.Summary)
	}
	return termsafe.Visible(e.Name + " " + e.Summary)
}

var spinner = []string{"⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"}

// line is the status line now, "" when no turn runs. Each call advances
// the spinner.
func (s *status) line(cols int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.active {
		return ""
	}
	now := s.now()
	s.frame++
	phase := s.phase
	if s.verifying != "" && !strings.HasPrefix(phase, "waiting") && phase != "streaming" && phase != "thinking" {
		phase = "verifying: " + s.verifying
	}
	if left := s.retryUntil.Sub(now); left > 0 {
		phase = fmt.Sprintf("retrying in %ds (attempt %d)", int((left+time.Second-1)/time.Second), s.attempt)
	}
	took := now.Sub(s.started)
	figures := []string{fmt.Sprintf("%ds", int(took/time.Second))}
	if took >= time.Minute {
		figures[0] = fmt.Sprintf("%dm %02ds", int(took/time.Minute), int(took%time.Minute/time.Second))
	}
	if t := s.outTokens + s.streamed/4; t > 0 {
		figures = append(figures, tokens(t)+" tokens")
	}
	if s.cost != "" {
		figures = append(figures, s.cost)
	}
	figures = append(figures, "esc to stop")
	tail := " · " + strings.Join(figures, " · ")
	spin := spinner[s.frame%len(spinner)]
	phase = style.Truncate(phase, max(cols-style.Width(tail)-2, 10))
	return style.Truncate(s.st.Yellow(spin)+" "+phase+s.st.Dim(tail), cols)
}
