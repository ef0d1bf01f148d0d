package chat

import (
	"bytes"
	"encoding/json"
)

// ReasoningBlock is one piece of a provider's reasoning state, kept verbatim
// so it can be sent back exactly as that provider requires: several APIs
// reject a tool-call continuation without it (Anthropic thinking signatures,
// DeepSeek and Kimi reasoning_content, OpenRouter reasoning_details, Gemini
// thought signatures, OpenAI Responses reasoning items).
type ReasoningBlock struct {
	// Kind says what the block is and so where it goes back; see the
	// Reasoning* constants. A provider sends back only the kinds it knows.
	Kind string `json:"kind"`
	// Text is the visible reasoning of the block (thinking text, a summary),
	// also shown to the user.
	Text string `json:"text,omitempty"`
	// Signature is Anthropic's signature over a thinking block's text.
	Signature string `json:"signature,omitempty"`
	// Raw is the provider's own object for the block, verbatim: an OpenRouter
	// reasoning detail, an Anthropic redacted_thinking block, a Responses
	// reasoning item, Gemini's extra_content.
	Raw RawJSON `json:"raw,omitempty"`
}

// The block kinds. Chat Completions kinds are named after the field the
// reasoning came in, so an unknown compatible server gets it back there.
const (
	ReasoningThinking      = "thinking"          // Anthropic thinking: Text + Signature
	ReasoningRedacted      = "redacted_thinking" // Anthropic redacted_thinking: Raw
	ReasoningContentField  = "reasoning_content" // DeepSeek, Kimi, Qwen, GLM, vLLM: Text
	ReasoningField         = "reasoning"         // OpenRouter, Ollama, Groq, newer vLLM: Text
	ReasoningDetails       = "reasoning_details" // OpenRouter: one detail object in Raw
	ReasoningThinkingPart  = "thinking_part"     // Mistral: a thinking part of content: Text
	ReasoningExtraContent  = "extra_content"     // Gemini (OpenAI-compatible): message-level Raw
	ReasoningResponsesItem = "responses_item"    // OpenAI Responses: a reasoning item in Raw
	// OpenAI Responses: an assistant message item in Raw, for its phase
	// ("commentary", "final_answer"), which must go back with its text.
	ReasoningResponsesMessage = "responses_message"
)

// RawJSON is JSON text kept as it came. Unlike json.RawMessage it is a
// string, so the types holding it stay comparable.
type RawJSON string

// MarshalJSON writes the text as is; empty or invalid text is null.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if r == "" || !json.Valid([]byte(r)) {
		return []byte("null"), nil
	}
	return []byte(r), nil
}

// UnmarshalJSON keeps the JSON text, compacted; null is empty.
func (r *RawJSON) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*r = ""
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, b); err != nil {
		return err
	}
	*r = RawJSON(buf.String())
	return nil
}
