package responses

import (
	"encoding/json"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// TestAssistantTurnGoesBackInOrder: an assistant message's items go back
// as they came (reasoning, a commentary, more reasoning, the final
// answer), each message with its phase and each reasoning item with its
// id; an item with no reasoning inline is left out.
func TestAssistantTurnGoesBackInOrder(t *testing.T) {
	t.Parallel()
	rs := func(id, enc string) chat.ReasoningBlock {
		return chat.ReasoningBlock{Kind: chat.ReasoningResponsesItem,
			Raw: chat.RawJSON(`{"type":"reasoning","id":"` + id + `","status":"completed","summary":[],"encrypted_content":` + enc + `}`)}
	}
	msg := func(phase, text string) chat.ReasoningBlock {
		return chat.ReasoningBlock{Kind: chat.ReasoningResponsesMessage,
			Raw: chat.RawJSON(`{"type":"message","id":"msg_1","status":"completed","role":"assistant","phase":"` + phase +
				`","content":[{"type":"output_text","annotations":[],"logprobs":[],"text":"` + text + `"}]}`)}
	}
	deepseek := chat.ReasoningBlock{Kind: chat.ReasoningResponsesItem,
		Raw: `{"type":"reasoning","id":"fa6f","status":"completed","content":[{"type":"reasoning_text","text":"Call it."}],"summary":[]}`}
	tests := []struct {
		name string
		m    chat.Message
		want string
	}{
		{"the items in order, with ids and phases",
			chat.Message{Role: chat.RoleAssistant, Content: "Checking.Done.", ReasoningBlocks: []chat.ReasoningBlock{
				rs("rs_1", `"gAAA1"`), msg("commentary", "Checking."), rs("rs_2", `"gAAA2"`), msg("final_answer", "Done.")},
				ToolCalls: []chat.ToolCall{{ID: "call_1", Name: "ls", Arguments: ""}}},
			`[{"encrypted_content":"gAAA1","id":"rs_1","summary":[],"type":"reasoning"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking."}],"phase":"commentary"},` +
				`{"encrypted_content":"gAAA2","id":"rs_2","summary":[],"type":"reasoning"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Done."}],"phase":"final_answer"},` +
				`{"type":"function_call","call_id":"call_1","name":"ls","arguments":"{}"}]`},
		{"DeepSeek's reasoning, inline as content, with its id",
			chat.Message{Role: chat.RoleAssistant, ReasoningBlocks: []chat.ReasoningBlock{deepseek}},
			`[{"content":[{"type":"reasoning_text","text":"Call it."}],"id":"fa6f","summary":[],"type":"reasoning"}]`},
		{"a reasoning item with nothing inline is left out",
			chat.Message{Role: chat.RoleAssistant, Content: "Hi.", ReasoningBlocks: []chat.ReasoningBlock{rs("rs_1", "null")}},
			`[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi."}]}]`},
		{"text changed since: one message, the last phase",
			chat.Message{Role: chat.RoleAssistant, Content: "Checking. (cut)", ReasoningBlocks: []chat.ReasoningBlock{
				msg("commentary", "Checking."), rs("rs_1", `"gAAA1"`)}},
			`[{"encrypted_content":"gAAA1","id":"rs_1","summary":[],"type":"reasoning"},` +
				`{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Checking. (cut)"}],"phase":"commentary"}]`},
		{"a message stored before phases were kept: no phase",
			chat.Message{Role: chat.RoleAssistant, Content: "Hi."},
			`[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hi."}]}]`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(items(&tt.m))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != tt.want {
			t.Errorf("%s:\n got  %s\n want %s", tt.name, b, tt.want)
		}
	}
}
