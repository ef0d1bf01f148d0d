package anthropic

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

func TestText(t *testing.T) {
	t.Parallel()
	body := messageStart(25, 0, 0) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		ping + textDelta(0, "Hello") + textDelta(0, ", world") + textDelta(0, "!") + blockStop(0) +
		messageEnd("end_turn", 15)
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"text", "text", "text", "usage", "done"}
	if got := kinds(ds); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds = %v, want %v", got, want)
	}
	a := accumulate(ds)
	if m := a.Message(); m.Content != "Hello, world!" {
		t.Fatalf("content = %q", m.Content)
	}
	if a.StopReason() != "end_turn" || a.Usage() != (chat.Usage{InputTokens: 25, OutputTokens: 15}) {
		t.Fatalf("stop %q usage %+v", a.StopReason(), a.Usage())
	}
}

// thinkingThenTools is a tool-use turn with extended thinking: a thinking
// block with its signature, text, then two tool_use blocks whose input
// arrives as input_json_delta fragments.
var thinkingThenTools = messageStart(472, 2048, 100) +
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"I need to read"}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":" two files."}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}}`) +
	blockStop(0) +
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`) +
	textDelta(1, "Reading both.") + blockStop(1) +
	ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_01A","name":"read_file","input":{}}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":""}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"path\": \"a"}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":".go\"}"}}`) +
	blockStop(2) +
	ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_01B","name":"read_file","input":{}}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{\"path\": "}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"\"b.go\"}"}}`) +
	blockStop(3) +
	messageEnd("tool_use", 89)

func TestThinkingAndTools(t *testing.T) {
	t.Parallel()
	ds, err := collect(t, newProvider(serve(t, reply{body: thinkingThenTools})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	a := accumulate(ds)
	want := chat.Message{
		Role:      chat.RoleAssistant,
		Content:   "Reading both.",
		Reasoning: "I need to read two files.",
		ReasoningBlocks: []chat.ReasoningBlock{{Kind: chat.ReasoningThinking, Text: "I need to read two files.",
			Signature: "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds"}},
		ToolCalls: []chat.ToolCall{
			{ID: "toolu_01A", Name: "read_file", Arguments: `{"path": "a.go"}`},
			{ID: "toolu_01B", Name: "read_file", Arguments: `{"path": "b.go"}`},
		},
	}
	if got := a.Message(); !reflect.DeepEqual(got, want) {
		t.Fatalf("message\n got %+v\nwant %+v", got, want)
	}
	if a.StopReason() != "tool_use" {
		t.Fatalf("stop = %q", a.StopReason())
	}
	// Usage combines message_start (input, cache) and message_delta (output).
	if u := a.Usage(); u != (chat.Usage{InputTokens: 472, OutputTokens: 89, CacheReadTokens: 2048, CacheWriteTokens: 100}) {
		t.Fatalf("usage = %+v", u)
	}
	var starts, ends []int
	for _, d := range ds {
		switch d.Kind {
		case chat.DeltaToolCallStart:
			starts = append(starts, d.ToolIndex)
		case chat.DeltaToolCallEnd:
			ends = append(ends, d.ToolIndex)
		}
	}
	if !reflect.DeepEqual(starts, []int{0, 1}) || !reflect.DeepEqual(ends, []int{0, 1}) {
		t.Fatalf("tool indexes: starts %v ends %v (want positions among tool_use blocks)", starts, ends)
	}
}

func TestOverloadedEvent(t *testing.T) {
	t.Parallel()
	body := messageStart(10, 0, 0) +
		ev("error", `{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}`)
	_, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	var e *llm.Error
	if !errors.As(err, &e) || !e.Retryable || e.Message != "Overloaded (overloaded_error)" {
		t.Fatalf("err = %#v", err)
	}
}

func TestInvalidRequestEventNotRetryable(t *testing.T) {
	t.Parallel()
	body := ev("error", `{"type":"error","error":{"type":"invalid_request_error","message":"prompt is too long: 210000 tokens > 200000 maximum"}}`)
	_, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err == nil || llm.IsRetryable(err) || !llm.IsContextOverflow(err) {
		t.Fatalf("err = %v", err)
	}
}

func TestCutStream(t *testing.T) {
	t.Parallel()
	body := messageStart(10, 0, 0) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`) +
		textDelta(0, "Hel")
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if !llm.IsRetryable(err) || !errors.Is(err, llm.ErrStreamCut) {
		t.Fatalf("err = %v, want retryable ErrStreamCut", err)
	}
	if len(ds) != 1 || ds[0].Text != "Hel" {
		t.Fatalf("deltas = %+v", ds)
	}
}

func TestMalformedEvent(t *testing.T) {
	t.Parallel()
	body := messageStart(10, 0, 0) + ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_de`)
	_, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "malformed stream event") {
		t.Fatalf("err = %v", err)
	}
}

func TestHTTPErrors(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status     int
		body       string
		header     map[string]string
		retryable  bool
		retryAfter time.Duration
		msg        string
	}{
		{401, `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + testKey + `"}}`, nil, false, 0,
			"anthropic: HTTP 401: invalid x-api-key [REDACTED] (check ANTHROPIC_API_KEY or CODER_API_KEY)"},
		{529, `{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, nil, true, 0, "HTTP 529: Overloaded"},
		{429, `{"type":"error","error":{"type":"rate_limit_error","message":"Number of request tokens has exceeded your per-minute rate limit"}}`,
			map[string]string{"Retry-After": "7"}, true, 7 * time.Second, "rate limit"},
	}
	for _, tt := range tests {
		h := map[string]string{"Content-Type": "application/json", "request-id": "req_011"}
		for k, v := range tt.header {
			h[k] = v
		}
		_, err := collect(t, newProvider(serve(t, reply{status: tt.status, body: tt.body, header: h})), testReq)
		var e *llm.Error
		if !errors.As(err, &e) || e.Retryable != tt.retryable || e.RetryAfter != tt.retryAfter || !strings.Contains(err.Error(), tt.msg) {
			t.Fatalf("%d: err = %v (%+v)", tt.status, err, e)
		}
		if strings.Contains(err.Error(), testKey) {
			t.Fatalf("key leaked: %v", err)
		}
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: messageStart(1, 0, 0), stall: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	err := newProvider(fs).Stream(ctx, testReq, func(chat.MessageDelta) {})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}
