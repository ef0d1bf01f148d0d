package anthropic

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
)

// twoThinkingBlocks is interleaved thinking: thinking, a redacted block,
// a tool call, then a second thinking block, each signed on its own.
var twoThinkingBlocks = messageStart(10, 0, 0) +
	ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"thinking_delta","thinking":"First."}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"signature_delta","signature":"sigOne=="}}`) +
	blockStop(0) +
	ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}}`) +
	blockStop(1) +
	ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"thinking","thinking":"","signature":""}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"thinking_delta","thinking":" Second."}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"signature_delta","signature":"sigTwo=="}}`) +
	blockStop(2) +
	ev("content_block_start", `{"type":"content_block_start","index":3,"content_block":{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}}`) +
	ev("content_block_delta", `{"type":"content_block_delta","index":3,"delta":{"type":"input_json_delta","partial_json":"{}"}}`) +
	blockStop(3) + messageEnd("tool_use", 30)

func TestThinkingBlocksKeepTheirOwnSignatures(t *testing.T) {
	t.Parallel()
	fs := serve(t, reply{body: twoThinkingBlocks}, reply{body: messageStart(1, 0, 0) + messageEnd("end_turn", 1)})
	p := newProvider(fs)
	ds, err := collect(t, p, testReq)
	if err != nil {
		t.Fatal(err)
	}
	m := accumulate(ds).Message()
	want := []chat.ReasoningBlock{
		{Kind: chat.ReasoningThinking, Text: "First.", Signature: "sigOne=="},
		{Kind: chat.ReasoningRedacted, Raw: `{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}`},
		{Kind: chat.ReasoningThinking, Text: " Second.", Signature: "sigTwo=="},
	}
	if !reflect.DeepEqual(m.ReasoningBlocks, want) || m.Reasoning != "First. Second." {
		t.Fatalf("blocks %+v", m.ReasoningBlocks)
	}
	// The continuation sends them back first, each as it came.
	next := llm.Request{RunID: "r", Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "go"}, m, {Role: chat.RoleTool, ToolCallID: "toolu_1", Content: "a.go"},
	}}
	if _, err := collect(t, p, next); err != nil {
		t.Fatal(err)
	}
	var body struct {
		Messages []struct {
			Role    string            `json:"role"`
			Content []json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.Unmarshal([]byte(fs.requests()[1].body), &body); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range body.Messages[1].Content {
		got = append(got, string(b))
	}
	wantSent := []string{
		`{"type":"thinking","thinking":"First.","signature":"sigOne=="}`,
		`{"type":"redacted_thinking","data":"EmwKAhgBEgy3va3pzix/LafPsn4a"}`,
		`{"type":"thinking","thinking":" Second.","signature":"sigTwo=="}`,
		`{"type":"tool_use","id":"toolu_1","name":"ls","input":{}}`,
	}
	if !reflect.DeepEqual(got, wantSent) {
		t.Fatalf("assistant content sent\n got %v\nwant %v", got, wantSent)
	}
}

func TestToolInputWholeAtBlockStart(t *testing.T) {
	t.Parallel()
	// Programmatic tool calling (recorded): the input comes whole in
	// content_block_start and no input_json_delta follows.
	body := messageStart(10, 0, 0) +
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_019j","name":"rollDie","input":{"player":"player1"},"caller":{"type":"code_execution_20250825","tool_id":"srvtoolu_01Mz"}}}`) +
		blockStop(0) +
		// A normal block: {} at the start, then fragments; not doubled.
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"tool_use","id":"toolu_2","name":"ls","input":{}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":1,"delta":{"type":"input_json_delta","partial_json":"{\"p\":1}"}}`) +
		blockStop(1) +
		// Both whole and fragments (a proxy repeating itself): the fragments win.
		ev("content_block_start", `{"type":"content_block_start","index":2,"content_block":{"type":"tool_use","id":"toolu_3","name":"ls","input":{"p":2}}}`) +
		ev("content_block_delta", `{"type":"content_block_delta","index":2,"delta":{"type":"input_json_delta","partial_json":"{\"p\":2}"}}`) +
		blockStop(2) + messageEnd("tool_use", 5)
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ToolCall{
		{ID: "toolu_019j", Name: "rollDie", Arguments: `{"player":"player1"}`},
		{ID: "toolu_2", Name: "ls", Arguments: `{"p":1}`},
		{ID: "toolu_3", Name: "ls", Arguments: `{"p":2}`},
	}
	if got := accumulate(ds).Message().ToolCalls; !reflect.DeepEqual(got, want) {
		t.Fatalf("calls %+v", got)
	}
}

func TestPrepopulatedMessageStart(t *testing.T) {
	t.Parallel()
	body := ev("message_start", `{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[{"type":"text","text":"Looking up."},{"type":"tool_use","id":"toolu_f","name":"lookup_customer","input":{"id":"customer_123"}}],"stop_reason":"tool_use","usage":{"input_tokens":3,"output_tokens":0}}}`) +
		ev("message_stop", `{"type":"message_stop"}`)
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	m := accumulate(ds).Message()
	if m.Content != "Looking up." || len(m.ToolCalls) != 1 || m.ToolCalls[0].Arguments != `{"id":"customer_123"}` {
		t.Fatalf("message %+v", m)
	}
}
