package llm

import (
	"reflect"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

func seq(n int, d chat.MessageDelta) chat.MessageDelta {
	d.Seq = n
	return d
}

// TestAccumulatorTakesEveryDelta: duplicates are dropped once, by the
// retry layer (TestRetryDedupesIdenticalReplay), not again here.
func TestAccumulatorTakesEveryDelta(t *testing.T) {
	t.Parallel()
	var a Accumulator
	for _, d := range []chat.MessageDelta{seq(1, text("a")), seq(2, text("b")), seq(2, text("b")), seq(3, text("c"))} {
		a.Add(d)
	}
	if a.Text() != "abbc" {
		t.Fatalf("text = %q", a.Text())
	}
}

func TestAccumulatorReset(t *testing.T) {
	t.Parallel()
	var a Accumulator
	a.Add(seq(1, text("old")))
	a.Add(seq(2, chat.MessageDelta{Kind: chat.DeltaReasoning, Text: "hmm"}))
	a.Add(seq(3, chat.MessageDelta{Kind: chat.DeltaToolCallStart, ToolCallID: "x", ToolName: "ls"}))
	reset := seq(4, chat.MessageDelta{Kind: chat.DeltaReset})
	a.Add(reset)
	if m := a.Message(); m.Content != "" || m.Reasoning != "" || m.ToolCalls != nil {
		t.Fatalf("reset kept %+v", m)
	}
	a.Add(seq(5, text("new")))
	if m := a.Message(); m.Content != "new" || m.Reasoning != "" || m.ToolCalls != nil {
		t.Fatalf("after the reset: %+v", m)
	}
}

func TestAccumulatorAssemblesToolCalls(t *testing.T) {
	t.Parallel()
	ds := []chat.MessageDelta{
		{Kind: chat.DeltaText, Text: "Let me look."},
		{Kind: chat.DeltaToolCallStart, ToolIndex: 0, ToolCallID: "c0", ToolName: "read_file"},
		{Kind: chat.DeltaToolCallStart, ToolIndex: 1, ToolCallID: "c1", ToolName: "grep"},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 0, Text: `{"path":`},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 1, Text: `{"q":"x"}`},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 0, Text: `"a.go"}`},
		{Kind: chat.DeltaToolCallEnd, ToolIndex: 0},
		{Kind: chat.DeltaToolCallEnd, ToolIndex: 1},
		{Kind: chat.DeltaUsage, Usage: chat.Usage{InputTokens: 10, OutputTokens: 3}},
		{Kind: chat.DeltaDone, StopReason: "tool_calls"},
	}
	var a Accumulator
	for i, d := range ds {
		a.Add(seq(i+1, d))
	}
	want := chat.Message{Role: chat.RoleAssistant, Content: "Let me look.", ToolCalls: []chat.ToolCall{
		{ID: "c0", Name: "read_file", Arguments: `{"path":"a.go"}`},
		{ID: "c1", Name: "grep", Arguments: `{"q":"x"}`},
	}}
	if got := a.Message(); !reflect.DeepEqual(got, want) {
		t.Fatalf("got %+v", got)
	}
	if !a.Done() || a.StopReason() != "tool_calls" || a.Usage().InputTokens != 10 {
		t.Fatalf("done %v stop %q usage %+v", a.Done(), a.StopReason(), a.Usage())
	}
}

// A call the model sent without a name is kept, so it is answered with an
// error instead of vanishing; empty slots and bad indexes are not calls.
func TestAccumulatorKeepsNamelessCall(t *testing.T) {
	t.Parallel()
	var a Accumulator
	a.Add(chat.MessageDelta{Seq: 1, Kind: chat.DeltaToolCallStart, ToolIndex: 0, ToolCallID: "c0", ToolName: "ls"})
	a.Add(chat.MessageDelta{Seq: 2, Kind: chat.DeltaToolCallArgs, ToolIndex: 2, Text: `{"cut`})
	a.Add(chat.MessageDelta{Seq: 3, Kind: chat.DeltaToolCallArgs, ToolIndex: -1, Text: "bogus"})
	got := a.Message().ToolCalls
	if len(got) != 2 || got[0].Name != "ls" || got[1].Name != "" || got[1].Arguments != `{"cut` {
		t.Fatalf("calls = %+v", got)
	}
}

func TestAccumulatorKeepsReasoningBlocksApart(t *testing.T) {
	t.Parallel()
	var a Accumulator
	th := chat.ReasoningThinking
	for i, d := range []chat.MessageDelta{
		{Kind: chat.DeltaReasoning, Block: 0, BlockKind: th, Text: "think"},
		{Kind: chat.DeltaReasoningSig, Block: 0, Text: "sig"},
		{Kind: chat.DeltaReasoningSig, Block: 0, Text: "A=="},
		{Kind: chat.DeltaReasoningRaw, Block: 1, BlockKind: chat.ReasoningRedacted, Raw: `{"type":"redacted_thinking","data":"x"}`},
		{Kind: chat.DeltaReasoning, Block: 2, BlockKind: th, Text: " again"},
		{Kind: chat.DeltaReasoningSig, Block: 2, Text: "sigB=="},
		{Kind: chat.DeltaReasoning, Block: 9000, BlockKind: th, Text: "!"}, // out of range: shown, not kept as a block
		{Kind: chat.DeltaToolCallStart, ToolCallID: "c", ToolName: "ls"},
		{Kind: chat.DeltaToolCallExtra, Raw: `{"google":{"thought_signature":"ts"}}`},
	} {
		a.Add(seq(i+1, d))
	}
	m := a.Message()
	want := []chat.ReasoningBlock{
		{Kind: th, Text: "think", Signature: "sigA=="},
		{Kind: chat.ReasoningRedacted, Raw: `{"type":"redacted_thinking","data":"x"}`},
		{Kind: th, Text: " again", Signature: "sigB=="},
	}
	if !reflect.DeepEqual(m.ReasoningBlocks, want) || m.Reasoning != "think again!" {
		t.Fatalf("blocks %+v reasoning %q", m.ReasoningBlocks, m.Reasoning)
	}
	if len(m.ToolCalls) != 1 || m.ToolCalls[0].Extra != `{"google":{"thought_signature":"ts"}}` {
		t.Fatalf("calls %+v", m.ToolCalls)
	}
}

// TestAccumulatorInterleaved: fragments of one call (or reasoning block)
// may follow the start of the next, as servers streaming parallel calls
// (and OpenRouter's reasoning beside reasoning_details) do.
func TestAccumulatorInterleaved(t *testing.T) {
	t.Parallel()
	var a Accumulator
	for i, d := range []chat.MessageDelta{
		{Kind: chat.DeltaToolCallStart, ToolIndex: 0, ToolCallID: "a", ToolName: "ls"},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 0, Text: `{"p":`},
		{Kind: chat.DeltaToolCallStart, ToolIndex: 1, ToolCallID: "b", ToolName: "ls"},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 1, Text: `{}`},
		{Kind: chat.DeltaToolCallArgs, ToolIndex: 0, Text: `1}`},
		{Kind: chat.DeltaReasoning, Block: 0, BlockKind: chat.ReasoningField, Text: "x"},
		{Kind: chat.DeltaReasoning, Block: 1, BlockKind: chat.ReasoningDetails, Text: "y"},
		{Kind: chat.DeltaReasoning, Block: 0, Text: "z"},
	} {
		a.Add(seq(i+1, d))
	}
	m := a.Message()
	if len(m.ToolCalls) != 2 || m.ToolCalls[0].Arguments != `{"p":1}` || m.ToolCalls[1].Arguments != "{}" {
		t.Fatalf("calls %+v", m.ToolCalls)
	}
	if len(m.ReasoningBlocks) != 2 || m.ReasoningBlocks[0].Text != "xz" || m.ReasoningBlocks[1].Text != "y" {
		t.Fatalf("blocks %+v", m.ReasoningBlocks)
	}
}
