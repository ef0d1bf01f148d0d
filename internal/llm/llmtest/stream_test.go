package llmtest

import (
	"reflect"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// threeSteps has multi-byte text, reasoning and several tool calls so that
// every field arrives split across chunks.
func threeSteps() Scenario {
	return Scenario{Steps: []Step{
		{
			Reasoning: "Let me think about this carefully.",
			Text:      "Héllo, wörld — 日本語 text",
			ToolCalls: []ToolCall{
				Call("read_file", `{"path":"main.go","limit":100}`),
				{ID: "custom", Name: "bash", Args: `{"cmd":"ls -la | wc -l"}`},
			},
			Usage: chat.Usage{InputTokens: 100, OutputTokens: 20, CacheReadTokens: 30},
		},
		Calls(Call("write_file", `{"path":"a.txt","content":"x"}`)),
		Text("All done."),
	}}
}

func TestOpenAIStreamsScenario(t *testing.T) {
	srv := NewServer(t, threeSteps())

	resp, events, err := streamOnce(t, srv.OpenAIBaseURL()+"/chat/completions", openAIBody(true))
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	if !strings.Contains(events[0].data, `"delta":{"role":"assistant","content":""}`) {
		t.Fatalf("first chunk = %s", events[0].data)
	}
	r := assembleOpenAI(t, events)
	wantCalls := []ToolCall{
		{ID: "call_0_0", Name: "read_file", Args: `{"path":"main.go","limit":100}`},
		{ID: "custom", Name: "bash", Args: `{"cmd":"ls -la | wc -l"}`},
	}
	if r.role != "assistant" || r.reasoning != "Let me think about this carefully." ||
		r.text != "Héllo, wörld — 日本語 text" || r.finish != "tool_calls" || !r.done {
		t.Fatalf("step 0 = %+v", r)
	}
	if !reflect.DeepEqual(r.calls, wantCalls) {
		t.Fatalf("calls = %+v", r.calls)
	}
	if r.contentChunks < 3 || r.argChunks < 6 {
		t.Fatalf("not split: %d content chunks, %d argument chunks", r.contentChunks, r.argChunks)
	}
	// prompt_tokens includes the cached tokens on the OpenAI wire.
	u := r.usage
	if u["prompt_tokens"] != 130.0 || u["completion_tokens"] != 20.0 || u["total_tokens"] != 150.0 ||
		u["prompt_tokens_details"].(map[string]any)["cached_tokens"] != 30.0 {
		t.Fatalf("usage = %v", u)
	}

	_, events, err = streamOnce(t, srv.URL()+"/chat/completions", openAIBody(true))
	if err != nil {
		t.Fatal(err)
	}
	r = assembleOpenAI(t, events)
	if len(r.calls) != 1 || r.calls[0].ID != "call_1_0" || r.finish != "tool_calls" || r.usage["completion_tokens"].(float64) < 1 {
		t.Fatalf("step 1 = %+v", r)
	}

	_, events, err = streamOnce(t, srv.OpenAIBaseURL()+"/chat/completions", openAIBody(false))
	if err != nil {
		t.Fatal(err)
	}
	r = assembleOpenAI(t, events)
	if r.text != "All done." || r.finish != "stop" || r.calls != nil || r.usage != nil {
		t.Fatalf("step 2 = %+v", r)
	}
	for _, e := range events {
		if strings.Contains(e.data, `"usage"`) {
			t.Fatalf("usage sent without include_usage: %s", e.data)
		}
	}
	checkServedInOrder(t, srv, ProtocolOpenAI, 3)
}

func TestAnthropicStreamsScenario(t *testing.T) {
	srv := NewServer(t, threeSteps())

	resp, events, err := streamOnce(t, srv.URL()+"/v1/messages", anthropicBody())
	if err != nil {
		t.Fatal(err)
	}
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Fatalf("Content-Type = %q", ct)
	}
	r := assembleAnthropic(t, events)
	wantCalls := []ToolCall{
		{ID: "toolu_0_0", Name: "read_file", Args: `{"path":"main.go","limit":100}`},
		{ID: "custom", Name: "bash", Args: `{"cmd":"ls -la | wc -l"}`},
	}
	if !reflect.DeepEqual(r.blockTypes, []string{"thinking", "text", "tool_use", "tool_use"}) {
		t.Fatalf("blocks = %v", r.blockTypes)
	}
	if r.reasoning != "Let me think about this carefully." || r.signature != FakeSignature(0) ||
		r.text != "Héllo, wörld — 日本語 text" || r.stop != "tool_use" || !r.stopped {
		t.Fatalf("step 0 = %+v", r)
	}
	if !reflect.DeepEqual(r.calls, wantCalls) {
		t.Fatalf("calls = %+v", r.calls)
	}
	if r.textChunks < 3 || r.argChunks < 6 || r.inputTokens != 100 || r.outputTokens != 20 || r.model != "claude-test" {
		t.Fatalf("step 0 = %+v", r)
	}

	_, events, err = streamOnce(t, srv.URL()+"/messages", anthropicBody())
	if err != nil {
		t.Fatal(err)
	}
	r = assembleAnthropic(t, events)
	if len(r.calls) != 1 || r.calls[0].ID != "toolu_1_0" || r.blockTypes[0] != "tool_use" || r.stop != "tool_use" {
		t.Fatalf("step 1 = %+v", r)
	}

	_, events, err = streamOnce(t, srv.URL()+"/v1/messages", anthropicBody())
	if err != nil {
		t.Fatal(err)
	}
	r = assembleAnthropic(t, events)
	wantNames := []string{"message_start", "content_block_start", "ping", "content_block_delta", "content_block_delta",
		"content_block_stop", "message_delta", "message_stop"}
	if r.text != "All done." || r.stop != "end_turn" || !reflect.DeepEqual(r.names, wantNames) {
		t.Fatalf("step 2 = %+v", r)
	}
	checkServedInOrder(t, srv, ProtocolAnthropic, 3)
}

func checkServedInOrder(t *testing.T, srv *Server, protocol string, n int) {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) != n || srv.StepsServed() != n {
		t.Fatalf("%d requests, %d served; want %d", len(reqs), srv.StepsServed(), n)
	}
	for i, r := range reqs {
		if r.Index != i || r.Attempt != 1 || r.Protocol != protocol || !r.Completed ||
			r.Status != 200 || r.Fault != "" || r.End.Before(r.Start) {
			t.Fatalf("request %d = %s", i, r.summary())
		}
	}
}

func TestOpenAIOmitToolIndex(t *testing.T) {
	srv := NewServer(t, Scenario{Steps: []Step{{
		OmitToolIndex: true,
		ToolCalls:     []ToolCall{Call("a", `{"x":"0123456789"}`), Call("b", `{"y":"abcdefghij"}`)},
	}}})
	_, events, err := streamOnce(t, srv.OpenAIBaseURL()+"/chat/completions", openAIBody(false))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range events {
		if strings.Contains(e.data, `"tool_calls":[`) && !strings.Contains(e.data, `"tool_calls":[{"id":"call_0_`) {
			t.Fatalf("tool delta with index or without id: %s", e.data)
		}
	}
	r := assembleOpenAI(t, events)
	want := []ToolCall{{ID: "call_0_0", Name: "a", Args: `{"x":"0123456789"}`}, {ID: "call_0_1", Name: "b", Args: `{"y":"abcdefghij"}`}}
	if !reflect.DeepEqual(r.calls, want) {
		t.Fatalf("calls = %+v", r.calls)
	}
}

func TestSplitKeepsCharacters(t *testing.T) {
	got := split("ab日本語c", 2)
	want := []string{"ab", "日", "本", "語", "c"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("split = %q", got)
	}
	if split("", 3) != nil {
		t.Fatal("empty string must give no chunks")
	}
	if got := split("abcdefg", 3); !reflect.DeepEqual(got, []string{"abc", "def", "g"}) {
		t.Fatalf("split = %q", got)
	}
}
