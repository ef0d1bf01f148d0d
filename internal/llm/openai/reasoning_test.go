package openai

import (
	"reflect"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

func TestContentPartsArray(t *testing.T) {
	t.Parallel()
	// Mistral: thinking parts and text parts in delta.content; one chunk
	// ends the thinking and starts the answer (recorded, mistral-small).
	body := ck(`{"role":"assistant","content":""}`, "") +
		ck(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"17 * 23"}],"closed":true}]}`, "") +
		ck(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":" = 39"}],"closed":true}]}`, "") +
		ck(`{"content":[{"type":"thinking","thinking":[{"type":"text","text":"1."}],"closed":true},{"type":"text","text":"3"}]}`, "") +
		ck(`{"content":"91"}`, "") + ck(`{"content":5}`, "") + ck(`{}`, "stop") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	m := accumulate(ds).Message()
	want := []chat.ReasoningBlock{{Kind: chat.ReasoningThinkingPart, Text: "17 * 23 = 391."}}
	if m.Content != "391" || m.Reasoning != "17 * 23 = 391." || !reflect.DeepEqual(m.ReasoningBlocks, want) {
		t.Fatalf("message %+v", m)
	}
}

func TestReasoningDetailsAssembled(t *testing.T) {
	t.Parallel()
	// OpenRouter with GPT-5: the summary streams in pieces alongside
	// "reasoning"; the encrypted entry shares its index but not its type.
	body := ck(`{"role":"assistant","content":"","reasoning":"Plan","reasoning_details":[{"type":"reasoning.summary","summary":"Plan","format":"openai-responses-v1","index":0}]}`, "") +
		ck(`{"reasoning":" it.","reasoning_details":[{"type":"reasoning.summary","summary":" it.","format":"openai-responses-v1","index":0}]}`, "") +
		ck(`{"reasoning_details":[{"type":"reasoning.encrypted","data":"gAAAAB","id":"rs_1","format":"openai-responses-v1","index":0}]}`, "") +
		ck(`{"tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"ls","arguments":"{}"}}]}`, "") +
		ck(`{}`, "tool_calls") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	m := accumulate(ds).Message()
	want := []chat.ReasoningBlock{
		{Kind: chat.ReasoningField, Text: "Plan it."},
		{Kind: chat.ReasoningDetails, Raw: `{"format":"openai-responses-v1","index":0,"summary":"Plan it.","type":"reasoning.summary"}`},
		{Kind: chat.ReasoningDetails, Raw: `{"data":"gAAAAB","format":"openai-responses-v1","id":"rs_1","index":0,"type":"reasoning.encrypted"}`},
	}
	if m.Reasoning != "Plan it." || !reflect.DeepEqual(m.ReasoningBlocks, want) {
		t.Fatalf("reasoning %q blocks %+v", m.Reasoning, m.ReasoningBlocks)
	}
}

func TestReasoningDetailsAloneAreShown(t *testing.T) {
	t.Parallel()
	body := ck(`{"reasoning_details":[{"type":"reasoning.text","text":"Hm","index":0}]}`, "") +
		ck(`{"reasoning_details":[{"type":"reasoning.text","text":"m.","signature":"","index":0}]}`, "") +
		ck(`{"reasoning_details":[{"type":"reasoning.text","signature":"sig==","index":0}]}`, "") +
		ck(`{"content":"ok"}`, "stop") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	m := accumulate(ds).Message()
	want := []chat.ReasoningBlock{{Kind: chat.ReasoningDetails, Text: "Hmm.", Raw: `{"index":0,"signature":"sig==","text":"Hmm.","type":"reasoning.text"}`}}
	if m.Reasoning != "Hmm." || !reflect.DeepEqual(m.ReasoningBlocks, want) {
		t.Fatalf("reasoning %q blocks %+v", m.Reasoning, m.ReasoningBlocks)
	}
}

func TestGeminiThoughtSignatures(t *testing.T) {
	t.Parallel()
	// Google's OpenAI-compatible endpoint: a thought signature on each
	// function call, and on a text answer's delta.
	body := ck(`{"role":"assistant","tool_calls":[{"extra_content":{"google":{"thought_signature":"CsUBAdHt"}},"function":{"arguments":"{\"path\":\".\"}","name":"ls"},"id":"function-call-1","type":"function","index":0}]}`, "") +
		ck(`{"tool_calls":[{"function":{"arguments":"{}","name":"pwd"},"id":"function-call-2","type":"function","index":1}]}`, "tool_calls") + done
	ds, err := collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	calls := accumulate(ds).Message().ToolCalls
	if len(calls) != 2 || calls[0].Extra != `{"google":{"thought_signature":"CsUBAdHt"}}` || calls[1].Extra != "" {
		t.Fatalf("calls %+v", calls)
	}
	body = ck(`{"content":"Hello","extra_content":{"google":{"thought_signature":"Ep4B"}},"role":"assistant"}`, "stop") + done
	ds, err = collect(t, newProvider(serve(t, reply{body: body})), testReq)
	if err != nil {
		t.Fatal(err)
	}
	want := []chat.ReasoningBlock{{Kind: chat.ReasoningExtraContent, Raw: `{"google":{"thought_signature":"Ep4B"}}`}}
	if m := accumulate(ds).Message(); m.Content != "Hello" || !reflect.DeepEqual(m.ReasoningBlocks, want) {
		t.Fatalf("message %+v", m)
	}
}
