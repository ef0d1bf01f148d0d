package openai

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/catalog"
)

// benchHistory is a resumed session's history, as coder-bench's resume
// scenario makes it: 5,000 messages, a third of them 1 KB tool results.
func benchHistory(n int) []chat.Message {
	out := strings.Repeat("line of tool output\n", 50)
	var h []chat.Message
	for i := range n {
		switch i % 3 {
		case 0:
			h = append(h, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("step %d: do the next thing", i)})
		case 1:
			h = append(h, chat.Message{Role: chat.RoleAssistant, Content: "Running it.",
				ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: "bash", Arguments: `{"command":"go test ./..."}`}}})
		default:
			h = append(h, chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprintf("c%d", i-1), Content: out})
		}
	}
	return h
}

// BenchmarkEncode times a request body for a 5,000-message history:
// whole is the history encoded as one value (how bodies were made before
// the message cache, the yardstick); cold is the first call of a session
// (a resume); warm is a later call, one message more than the last.
//
//	go test -run '^$' -bench Encode ./internal/llm/openai
func BenchmarkEncode(b *testing.B) {
	h := benchHistory(5000)
	req := llm.Request{System: "You are coder.", Messages: h}
	b.Run("whole", func(b *testing.B) {
		for b.Loop() {
			msgs := make([]message, len(h))
			for i := range h {
				msgs[i] = convert(&h[i], catalog.RulesFor("", "m"))
			}
			if _, err := llm.MarshalBody(struct {
				Model    string    `json:"model"`
				Messages []message `json:"messages"`
			}{"m", msgs}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cold", func(b *testing.B) {
		for b.Loop() {
			if _, err := New(Config{Model: "m"}).encode(req); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("warm", func(b *testing.B) {
		p := New(Config{Model: "m"})
		if _, err := p.encode(req); err != nil {
			b.Fatal(err)
		}
		grown := llm.Request{System: req.System, Messages: append(h[:len(h):len(h)], chat.Message{Role: chat.RoleUser, Content: "more"})}
		for b.Loop() {
			if _, err := p.encode(grown); err != nil {
				b.Fatal(err)
			}
		}
	})
}
