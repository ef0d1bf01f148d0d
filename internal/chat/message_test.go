package chat

import (
	"reflect"
	"testing"
)

// TestEqualSeesEveryField changes each field of a message in turn, through
// reflection so that a field added later is covered too: Equal must see
// every change, since a provider reuses a message's old encoding when
// Equal says it is the same.
func TestEqualSeesEveryField(t *testing.T) {
	base := Message{Role: RoleAssistant, Content: "c", Reasoning: "r", ReasoningSignature: "s",
		ReasoningBlocks: []ReasoningBlock{{Kind: ReasoningThinking, Text: "t", Signature: "s", Raw: `{}`}},
		ToolCalls:       []ToolCall{{ID: "1", Name: "read", Arguments: `{}`, Extra: `{}`}},
		ToolCallID:      "id", ToolName: "n",
		Images: []Image{{MediaType: "image/png", SHA256: "ab", Data: []byte{1}}}, Turn: 3}
	same := base
	same.ToolCalls = []ToolCall{base.ToolCalls[0]}
	if !base.Equal(&same) {
		t.Fatal("a copy with equal slices is not Equal")
	}
	typ := reflect.TypeFor[Message]()
	for i := range typ.NumField() {
		other := base
		other.ToolCalls = []ToolCall{base.ToolCalls[0]}
		other.ReasoningBlocks = []ReasoningBlock{base.ReasoningBlocks[0]}
		other.Images = []Image{base.Images[0]}
		f := reflect.ValueOf(&other).Elem().Field(i)
		switch f.Kind() {
		case reflect.String:
			f.SetString(f.String() + "x")
		case reflect.Bool:
			f.SetBool(!f.Bool())
		case reflect.Int:
			f.SetInt(f.Int() + 1)
		case reflect.Slice:
			// one element's first field changed: the slices differ in content only
			e := f.Index(0).Field(0)
			e.SetString(e.String() + "x")
		default:
			t.Fatalf("field %s of kind %s: teach this test (and Equal) about it", typ.Field(i).Name, f.Kind())
		}
		if base.Equal(&other) {
			t.Errorf("a change to %s is not seen by Equal", typ.Field(i).Name)
		}
	}
}

// TestCloneOwnsItsSlices changes a message in place after cloning it: the
// clone keeps what it was, so Equal tells the two apart.
func TestCloneOwnsItsSlices(t *testing.T) {
	m := Message{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "1", Arguments: `{}`}},
		ReasoningBlocks: []ReasoningBlock{{Kind: ReasoningThinking, Text: "t"}}}
	c := m.Clone()
	m.ToolCalls[0].Arguments = `{"x":1}`
	if c.Equal(&m) || c.ToolCalls[0].Arguments != `{}` {
		t.Fatal("a change to the tool calls reached the clone")
	}
	c = m.Clone()
	m.ReasoningBlocks[0].Text = "changed"
	if c.Equal(&m) {
		t.Fatal("a change to the reasoning blocks reached the clone")
	}
}
