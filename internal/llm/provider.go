// Package llm defines the Provider interface the orchestrator talks to, the
// retry policy shared by every provider, and the accumulator that turns a
// stream of chat.MessageDeltas into a committed assistant message.
// Wire formats live in the subpackages openai and anthropic.
package llm

import (
	"context"

	"github.com/coder-agent/coder/internal/chat"
)

// Request is one model call.
type Request struct {
	RunID          string
	ModelCallIndex int

	Model    string
	System   string
	Messages []chat.Message
	Tools    []chat.ToolSpec
	// MaxTokens caps the answer; 0 lets the provider choose its default.
	MaxTokens int
}

// Emit receives deltas in order. It is called from the goroutine that called
// Stream and must not retain the delta's slices.
type Emit func(chat.MessageDelta)

// Provider streams one model call. Stream returns nil only after it emitted a
// DeltaDone; any other end is an error (classified with *Error so the retry
// layer knows whether to try again). A cancelled ctx returns ctx.Err()
// unwrapped-compatible (errors.Is(err, context.Canceled) holds).
type Provider interface {
	// Name is the provider type, e.g. "openai" or "anthropic".
	Name() string
	Stream(ctx context.Context, req Request, emit Emit) error
}
