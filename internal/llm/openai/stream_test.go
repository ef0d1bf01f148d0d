package openai

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

func TestTextOverManyChunks(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: textStream("Hel", "lo", ", wor", "ld", "!") + usageChunk(12, 5, 0) + done})
	ds, err := collect(t, newProvider(fs), testReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"text", "text", "text", "text", "text", "usage", "done"}
	if got := kinds(ds); !reflect.DeepEqual(got, want) {
		t.Fatalf("kinds = %v, want %v", got, want)
	}
	a := accumulate(ds)
	if m := a.Message(); m.Content != "Hello, world!" || m.Role != chat.RoleAssistant {
		t.Fatalf("message = %+v", m)
	}
	if a.StopReason() != "stop" || a.Usage() != (chat.Usage{InputTokens: 12, OutputTokens: 5}) {
		t.Fatalf("stop %q usage %+v", a.StopReason(), a.Usage())
	}
}

func TestReasoningContent(t *testing.T) {
	t.Parallel()
	// DeepSeek reasoner: reasoning_content first, then content; usage rides
	// on the finishing chunk, with DeepSeek's cache counters.
	body := ck(`{"role":"assistant","content":null,"reasoning_content":""}`, "") +
		ck(`{"content":null,"reasoning_content":"The user"}`, "") +
		ck(`{"content":null,"reasoning_content":" greets."}`, "") +
		ck(`{"content":"Hi","reasoning_content":null}`, "") +
		ck(`{"content":" there","reasoning_content":null}`, "") +
		`data: {"id":"d1","object":"chat.completion.chunk","created":1718000000,"model":"deepseek-reasoner","system_fingerprint":"fp_x","choices":[{"index":0,"delta":{"content":"","reasoning_content":null},"logprobs":null,"finish_reason":"stop"}],"usage":{"prompt_tokens":20,"completion_tokens":9,"total_tokens":29,"prompt_tokens_details":{"cached_tokens":0},"completion_tokens_details":{"reasoning_tokens":4},"prompt_cache_hit_tokens":16,"prompt_cache_miss_tokens":4}}` + "\n\n" + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	a := accumulate(ds)
	m := a.Message()
	if m.Reasoning != "The user greets." || m.Content != "Hi there" {
		t.Fatalf("message = %+v", m)
	}
	if a.Usage() != (chat.Usage{InputTokens: 4, OutputTokens: 9, CacheReadTokens: 16}) {
		t.Fatalf("usage = %+v", a.Usage())
	}
}

func TestReasoningFieldNotDuplicated(t *testing.T) {
	t.Parallel()
	body := ck(`{"reasoning":"a","reasoning_content":"a"}`, "") + ck(`{"reasoning":"b"}`, "") + ck(`{}`, "stop") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	if r := accumulate(ds).Message().Reasoning; r != "ab" {
		t.Fatalf("reasoning = %q", r)
	}
}

// twoCalls streams two parallel calls, name and arguments split over many
// chunks; withIndex false drops "index" as some compatible servers do.
func twoCalls(withIndex bool) string {
	idx := func(i string) string {
		if withIndex {
			return `"index":` + i + `,`
		}
		return ""
	}
	return ck(`{"role":"assistant","content":null,"tool_calls":[{`+idx("0")+`"id":"call_A","type":"function","function":{"name":"read_file","arguments":""}}]}`, "") +
		ck(`{"tool_calls":[{`+idx("0")+`"function":{"arguments":"{\"pa"}}]}`, "") +
		ck(`{"tool_calls":[{`+idx("0")+`"function":{"arguments":"th\": \"a.go\"}"}}]}`, "") +
		ck(`{"tool_calls":[{`+idx("1")+`"id":"call_B","type":"function","function":{"name":"grep","arguments":""}}]}`, "") +
		ck(`{"tool_calls":[{`+idx("1")+`"function":{"arguments":"{\"pattern\""}}]}`, "") +
		ck(`{"tool_calls":[{`+idx("1")+`"function":{"arguments":": \"TODO\"}"}}]}`, "") +
		ck(`{}`, "tool_calls") + usageChunk(100, 40, 64) + done
}

var wantCalls = []chat.ToolCall{
	{ID: "call_A", Name: "read_file", Arguments: `{"path": "a.go"}`},
	{ID: "call_B", Name: "grep", Arguments: `{"pattern": "TODO"}`},
}

func TestParallelToolCalls(t *testing.T) {
	t.Parallel()
	for _, withIndex := range []bool{true, false} {
		ds, err := collect(t, newProvider(serve(t, reply{body: twoCalls(withIndex)})), testReq)
		if err != nil {
			t.Fatal(err)
		}
		a := accumulate(ds)
		if got := a.Message().ToolCalls; !reflect.DeepEqual(got, wantCalls) {
			t.Fatalf("withIndex=%v: calls = %+v", withIndex, got)
		}
		if a.StopReason() != "tool_calls" || a.Usage() != (chat.Usage{InputTokens: 36, OutputTokens: 40, CacheReadTokens: 64}) {
			t.Fatalf("stop %q usage %+v", a.StopReason(), a.Usage())
		}
		ends := 0
		for _, d := range ds {
			if d.Kind == chat.DeltaToolCallEnd {
				ends++
			}
		}
		if ends != 2 {
			t.Fatalf("%d DeltaToolCallEnd, want 2", ends)
		}
	}
}

func TestToolNameInPiecesAndSameIndexNewID(t *testing.T) {
	t.Parallel()
	body := ck(`{"tool_calls":[{"index":0,"id":"c1","function":{"name":"read_"}}]}`, "") +
		ck(`{"tool_calls":[{"index":0,"function":{"name":"file"}}]}`, "") +
		ck(`{"tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`, "") +
		// A server that numbers every call 0: a new id is a new call.
		ck(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"bash","arguments":"{\"cmd\":1}"}}]}`, "") +
		ck(`{"tool_calls":[{"index":0,"id":"c2","function":{"name":"bash","arguments":""}}]}`, "") +
		ck(`{}`, "tool_calls") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{{ID: "c1", Name: "read_file", Arguments: "{}"}, {ID: "c2", Name: "bash", Arguments: `{"cmd":1}`}}
	if got := accumulate(ds).Message().ToolCalls; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls = %+v", got)
	}
}

func TestFinishWithoutDone(t *testing.T) {
	t.Parallel()
	ds, err := collect(t, newProvider(serve(t, reply{body: textStream("ok")})), testReq)
	if err != nil {
		t.Fatalf("finish_reason then EOF should be done: %v", err)
	}
	if m := accumulate(ds).Message(); m.Content != "ok" {
		t.Fatalf("content = %q", m.Content)
	}
}

func TestCutStream(t *testing.T) {
	t.Parallel()
	body := ck(`{"role":"assistant","content":""}`, "") + ck(`{"content":"partial"}`, "")
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if !llm.IsRetryable(err) || !errors.Is(err, llm.ErrStreamCut) {
		t.Fatalf("err = %v, want retryable ErrStreamCut", err)
	}
	if len(ds) != 1 || ds[0].Text != "partial" {
		t.Fatalf("deltas = %+v", ds)
	}
}

func TestMalformedChunk(t *testing.T) {
	t.Parallel()
	body := ck(`{"content":"a"}`, "") + "data: {\"choices\":[{\"delta\":{\"content\":\"b\"\n\n" + ck(`{}`, "stop") + done
	_, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "malformed stream event") {
		t.Fatalf("err = %v", err)
	}
}

func TestErrorInStream(t *testing.T) {
	t.Parallel()
	body := ck(`{"content":"a"}`, "") +
		`data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}` + "\n\n"
	_, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	var e *llm.Error
	if !errors.As(err, &e) || !e.Retryable || !strings.Contains(e.Message, "server had an error") {
		t.Fatalf("err = %#v", err)
	}
}

func TestIdleTimeout(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: ck(`{"content":"a"}`, ""), stall: 5 * time.Second})
	// 500 ms: a loaded machine can take longer than 100 ms between the
	// headers and the first chunk, which is not the stall under test.
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, IdleTimeout: 500 * time.Millisecond}, Model: "m"})
	start := time.Now()
	_, err := collect(t, p, testReq)
	if !llm.IsRetryable(err) || !errors.Is(err, llm.ErrStreamCut) || !strings.Contains(err.Error(), "stalled") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("the idle timeout did not fire")
	}
}

func TestFirstByteTimeout(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{delay: 5 * time.Second})
	p := New(Config{Endpoint: llm.Endpoint{BaseURL: fs.url, Timeout: 100 * time.Millisecond}, Model: "m"})
	start := time.Now()
	_, err := collect(t, p, testReq)
	if !llm.IsRetryable(err) || !strings.Contains(err.Error(), "no response from the server within 100ms") {
		t.Fatalf("err = %v", err)
	}
	if time.Since(start) > 3*time.Second {
		t.Fatal("the timeout did not fire")
	}
}

func TestCancel(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: ck(`{"content":"a"}`, ""), stall: 5 * time.Second})
	ctx, cancel := context.WithCancel(context.Background())
	err := newProvider(fs).Stream(ctx, testReq, func(chat.MessageDelta) { cancel() })
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestRetryAfterCutThroughWithRetry(t *testing.T) {
	t.Parallel()
	cut := ck(`{"content":"Hel"}`, "")
	fs := serve(t, reply{body: cut}, reply{body: textStream("Hel", "lo") + done})
	p := llm.WithRetry(newProvider(fs), llm.RetryPolicy{MaxRetries: 2, BaseDelay: time.Millisecond, MaxDelay: time.Millisecond})
	ds, err := collect(t, p, testReq)
	if err != nil {
		t.Fatal(err)
	}
	var text strings.Builder
	for _, d := range ds {
		text.WriteString(d.Text)
	}
	if text.String() != "Hello" || accumulate(ds).Message().Content != "Hello" {
		t.Fatalf("consumer saw %q", text.String())
	}
	if n := len(fs.requests()); n != 2 {
		t.Fatalf("%d requests, want 2", n)
	}
}
