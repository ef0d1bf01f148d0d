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

func TestAccumulatorDedupesBySeq(t *testing.T) {
	t.Parallel()
	var a Accumulator
	if !a.Add(seq(1, text("a"))) || !a.Add(seq(2, text("b"))) {
		t.Fatal("new deltas reported as duplicates")
	}
	if a.Add(seq(2, text("b"))) || a.Add(seq(1, text("a"))) {
		t.Fatal("duplicates reported as new")
	}
	a.Add(seq(3, text("c")))
	if a.Text() != "abc" {
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
	if a.Add(reset) {
		t.Fatal("a replayed reset was accepted")
	}
	if a.Add(seq(3, text("stale"))) || a.Text() != "new" {
		t.Fatalf("text = %q", a.Text())
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

func TestAccumulatorSignature(t *testing.T) {
	t.Parallel()
	var a Accumulator
	a.Add(chat.MessageDelta{Seq: 1, Kind: chat.DeltaReasoning, Text: "think"})
	a.Add(chat.MessageDelta{Seq: 2, Kind: chat.DeltaReasoningSig, Text: "sig"})
	a.Add(chat.MessageDelta{Seq: 3, Kind: chat.DeltaReasoningSig, Text: "=="})
	if m := a.Message(); m.Reasoning != "think" || m.ReasoningSignature != "sig==" {
		t.Fatalf("got %+v", m)
	}
}
