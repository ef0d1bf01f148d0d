package llm_test

import (
	"context"
	"encoding/json"
	"io"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/anthropic"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/llm/responses"
)

// step is one change to a session's history before its next request:
// it grows, is changed in place and by value, is compacted, grows again
// and switches model (the request's model is model).
type step struct {
	model string
	do    func(h []chat.Message) []chat.Message
}

func grow(ms ...chat.Message) func([]chat.Message) []chat.Message {
	return func(h []chat.Message) []chat.Message { return append(h, ms...) }
}

func steps() []step {
	blocks := []chat.ReasoningBlock{
		{Kind: chat.ReasoningThinking, Text: "think", Signature: "sig"},
		{Kind: chat.ReasoningRedacted, Raw: `{"type":"redacted_thinking","data":"x"}`},
		{Kind: chat.ReasoningContentField, Text: "why"},
		{Kind: chat.ReasoningDetails, Raw: `{"type":"reasoning.text","text":"d"}`},
		{Kind: chat.ReasoningResponsesItem, Raw: `{"type":"reasoning","id":"rs_1","encrypted_content":"e","summary":[]}`},
	}
	return []step{
		{do: grow(chat.Message{Role: chat.RoleUser, Content: "fix <main.go> & \"test\""})},
		{do: grow(chat.Message{Role: chat.RoleAssistant, Content: "Looking.", Reasoning: "legacy", ReasoningBlocks: blocks,
			ToolCalls: []chat.ToolCall{{ID: "c1", Name: "read", Arguments: `{"path":"main.go"}`, Extra: `{"google":{}}`},
				{ID: "c2", Name: "bash", Arguments: `{"cmd": "go te`}}})},
		{do: grow(chat.Message{Role: chat.RoleTool, ToolCallID: "c1", ToolName: "read", Content: "package main\n"},
			chat.Message{Role: chat.RoleTool, ToolCallID: "c2", ToolName: "bash", Content: "bad", IsError: true})},
		{do: grow(chat.Message{Role: chat.RoleUser, Content: "and lint"}, chat.Message{Role: chat.RoleAssistant, Content: "Done."})},
		// In place, in the arrays the last request was given.
		{do: func(h []chat.Message) []chat.Message {
			h[1].ToolCalls[0].Arguments = `{"path":"other.go"}`
			h[1].ReasoningBlocks[0].Text = "thought again"
			h[2].Content = "package other\n"
			return h
		}},
		// A message stored before reasoning blocks existed.
		{do: grow(chat.Message{Role: chat.RoleUser, Content: "more"},
			chat.Message{Role: chat.RoleAssistant, Content: "ok", Reasoning: "old text", ReasoningSignature: "old-sig"})},
		// Compaction: a summary and the last two messages.
		{do: func(h []chat.Message) []chat.Message {
			return []chat.Message{{Role: chat.RoleUser, Content: "summary of the session"}, h[len(h)-2], h[len(h)-1]}
		}},
		{do: grow(chat.Message{Role: chat.RoleUser, Content: "next"},
			chat.Message{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "c3", Name: "list"}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: "c3", Content: "a\nb"})},
		// Another model with other pass-back rules, then back.
		{model: "deepseek-v4-flash", do: grow()},
		{do: grow()},
		{do: grow(chat.Message{Role: chat.RoleUser, Content: "bye"})},
	}
}

// TestCachedBodiesMatchFreshOnes sends one session's requests through a
// provider that keeps its encodings and, for each, the same request
// through a new provider: the bytes on the wire must be the same, valid
// JSON, sent with a Content-Length, for each of the three wire protocols.
func TestCachedBodiesMatchFreshOnes(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(url string) llm.Provider
	}{
		{"openai", func(url string) llm.Provider {
			return openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: url + "/v1", Catalog: "alibaba-cn"}, Model: "m"})
		}},
		{"anthropic", func(url string) llm.Provider {
			return anthropic.New(anthropic.Config{Endpoint: llm.Endpoint{BaseURL: url}, Model: "m"})
		}},
		{"responses", func(url string) llm.Provider {
			return responses.New(responses.Config{Endpoint: llm.Endpoint{BaseURL: url + "/v1"}, Model: "m"})
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ss := steps() // each its own: a step changes messages in place
			var sc llmtest.Scenario
			for range 2 * len(ss) {
				sc.Steps = append(sc.Steps, llmtest.Text("ok"))
			}
			srv := llmtest.NewServer(t, sc)
			warm := tc.make(srv.URL())
			var h []chat.Message
			for i, st := range ss {
				h = st.do(h)
				req := llm.Request{System: "You are coder.", Model: st.model, Messages: h,
					Tools: []chat.ToolSpec{{Name: "read", Description: "Read.", Parameters: json.RawMessage(`{"type":"object"}`)}}}
				for _, p := range []llm.Provider{warm, tc.make(srv.URL())} {
					if err := p.Stream(context.Background(), req, func(chat.MessageDelta) {}); err != nil {
						t.Fatalf("request %d: %v", i, err)
					}
				}
				rs := srv.Requests()
				cached, fresh := rs[len(rs)-2], rs[len(rs)-1]
				if string(cached.Body) != string(fresh.Body) {
					t.Fatalf("request %d: the body differs from a fresh encoding\ncached %s\n fresh %s", i, cached.Body, fresh.Body)
				}
				if !json.Valid(cached.Body) {
					t.Fatalf("request %d: invalid JSON %s", i, cached.Body)
				}
				if n, _ := strconv.Atoi(cached.Header.Get("Content-Length")); n != len(cached.Body) {
					t.Fatalf("request %d: Content-Length %q for %d bytes", i, cached.Header.Get("Content-Length"), len(cached.Body))
				}
			}
		})
	}
}

// TestBodyReader reads a body as the HTTP client may: by Read with any
// buffer size (iotest's checks), and whole by WriteTo, twice.
func TestBodyReader(t *testing.T) {
	b, err := llm.NewBody(struct {
		Model string `json:"model"`
	}{"m <&>"})
	if err != nil {
		t.Fatal(err)
	}
	b.Array("messages", 2)
	b.Item([]byte(`{"a":1}`))
	b.Item(nil)
	b.Item([]byte(`{"b":`), []byte(`2}`), nil)
	b.Item([]byte(`{"c":3},{"d":4}`))
	b.EndArray()
	b.End()
	want := `{"model":"m <&>","messages":[{"a":1},{"b":2},{"c":3},{"d":4}]}`
	if string(b.Bytes()) != want || b.Len() != int64(len(want)) {
		t.Fatalf("body %s (%d bytes), want %s", b.Bytes(), b.Len(), want)
	}
	if err := iotest.TestReader(b.Reader(), []byte(want)); err != nil {
		t.Fatal(err)
	}
	var sb strings.Builder
	if _, err := io.Copy(&sb, b.Reader()); err != nil || sb.String() != want {
		t.Fatalf("WriteTo: %q %v", sb.String(), err)
	}
	empty, err := llm.NewBody(struct{}{})
	if err != nil {
		t.Fatal(err)
	}
	empty.Array("input", 0)
	empty.EndArray()
	empty.End()
	if got := string(empty.Bytes()); got != `{"input":[]}` {
		t.Fatalf("empty body %s", got)
	}
	if _, err := llm.NewBody([]int{1}); err == nil {
		t.Fatal("an array was taken for an object")
	}
}

// TestEncoderPieces encodes values of many sizes, some larger than a
// chunk and some that overflow the chunk in use, and checks each piece
// against json's own encoding after all were made (a later value must not
// write over an earlier one, nor an append to a piece over the next).
func TestEncoderPieces(t *testing.T) {
	var e llm.Encoder
	var vals []any
	var got [][]byte
	for i := range 400 {
		v := map[string]any{"i": i, "s": strings.Repeat("<x>", (i*7919)%5000), "big": i%97 == 0}
		if i%97 == 0 {
			v["s"] = strings.Repeat("y", 200<<10)
		}
		b, err := e.Encode(v)
		if err != nil {
			t.Fatal(err)
		}
		if i > 0 {
			_ = append(got[i-1], "garbage"...) // must not reach b
		}
		vals, got = append(vals, v), append(got, b)
	}
	for i, v := range vals {
		want, err := llm.MarshalBody(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got[i]) != string(want) {
			t.Fatalf("piece %d changed: %.80s…, want %.80s…", i, got[i], want)
		}
	}
	if _, err := e.Encode(func() {}); err == nil {
		t.Fatal("a func was encoded")
	}
	if b, err := e.Encode("after an error"); err != nil || string(b) != `"after an error"` {
		t.Fatalf("after an error: %s %v", b, err)
	}
}
