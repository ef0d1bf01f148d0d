package llmtest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"time"
)

// wire is one protocol's encoding of responses and errors, so the server's
// dispatch logic is the same for both.
type wire interface {
	// stream is the complete successful response to one step.
	stream(st *Step, step int, in inbound) []event
	// brokenEvent is an event whose data is not valid JSON.
	brokenEvent() event
	// errorEvent is the error the protocol sends inside a stream.
	errorEvent(status int, msg string) event
	// errorBody is the JSON body of a non-2xx reply.
	errorBody(status int, msg string, overflow bool) []byte
	// requestIDHeader names the header real servers put the request id in.
	requestIDHeader() string
	// keepAlive is what the protocol's servers send to keep an idle
	// stream open: raw SSE bytes carrying no content.
	keepAlive(n int) []byte
}

// inbound is what the response depends on from the request body.
type inbound struct {
	Model         string `json:"model"`
	Stream        bool   `json:"stream"`
	StreamOptions struct {
		IncludeUsage bool `json:"include_usage"`
	} `json:"stream_options"`
	size int
}

// parseInbound reads the fields both protocols share; a body that is not
// JSON yields the zero value, which fails the stream:true check.
func parseInbound(body []byte) inbound {
	var in inbound
	_ = json.Unmarshal(body, &in)
	in.size = len(body)
	if in.Model == "" {
		in.Model = "llmtest-model"
	}
	return in
}

type openAIWire struct{}

// The chunk types mirror the real field order and null/omitted choices:
// with include_usage every chunk carries "usage":null until the last.
type oaChunk struct {
	ID                string          `json:"id"`
	Object            string          `json:"object"`
	Created           int64           `json:"created"`
	Model             string          `json:"model"`
	SystemFingerprint string          `json:"system_fingerprint"`
	Choices           []oaChoice      `json:"choices"`
	Usage             json.RawMessage `json:"usage,omitempty"`
}

type oaChoice struct {
	Index        int       `json:"index"`
	Delta        oaDelta   `json:"delta"`
	Logprobs     *struct{} `json:"logprobs"`
	FinishReason *string   `json:"finish_reason"`
}

type oaDelta struct {
	Role             string        `json:"role,omitempty"`
	Content          *string       `json:"content,omitempty"`
	ReasoningContent string        `json:"reasoning_content,omitempty"`
	ToolCalls        []oaToolDelta `json:"tool_calls,omitempty"`
}

type oaToolDelta struct {
	Index    *int   `json:"index,omitempty"`
	ID       string `json:"id,omitempty"`
	Type     string `json:"type,omitempty"`
	Function oaFunc `json:"function"`
}

type oaFunc struct {
	Name      string `json:"name,omitempty"`
	Arguments string `json:"arguments"`
}

// oaBuilder accumulates the chunks of one response.
type oaBuilder struct {
	base   oaChunk
	events []event
}

func (b *oaBuilder) add(c oaChunk, final bool) {
	b.events = append(b.events, jsonEvent("", c, final))
}

func (b *oaBuilder) delta(d oaDelta) {
	c := b.base
	c.Choices = []oaChoice{{Delta: d}}
	b.add(c, false)
}

func (openAIWire) stream(st *Step, step int, in inbound) []event {
	b := &oaBuilder{base: oaChunk{
		ID:                fmt.Sprintf("chatcmpl-llmtest-%d", step),
		Object:            "chat.completion.chunk",
		Created:           time.Now().Unix(),
		Model:             in.Model,
		SystemFingerprint: "fp_llmtest",
	}}
	if in.StreamOptions.IncludeUsage {
		b.base.Usage = json.RawMessage("null")
	}
	empty := ""
	b.delta(oaDelta{Role: "assistant", Content: &empty})
	for _, p := range split(st.Reasoning, st.chunkSize()) {
		b.delta(oaDelta{ReasoningContent: p})
	}
	for _, p := range split(st.Text, st.chunkSize()) {
		b.delta(oaDelta{Content: &p})
	}
	for i := range st.ToolCalls {
		b.toolCall(st, step, i)
	}
	b.finish(st, in)
	return b.events
}

// toolCall sends the id, type and whole name first with empty arguments,
// then argument fragments keyed by index alone, as OpenAI does.
func (b *oaBuilder) toolCall(st *Step, step, i int) {
	id := st.callID("call", step, i)
	key := func(d oaToolDelta) oaToolDelta {
		if st.OmitToolIndex {
			d.ID = id // without an index, the id is what ties fragments together
		} else {
			d.Index = &i
		}
		return d
	}
	first := key(oaToolDelta{ID: id, Type: "function", Function: oaFunc{Name: st.ToolCalls[i].Name}})
	b.delta(oaDelta{ToolCalls: []oaToolDelta{first}})
	for _, p := range split(st.ToolCalls[i].Args, st.chunkSize()) {
		b.delta(oaDelta{ToolCalls: []oaToolDelta{key(oaToolDelta{Function: oaFunc{Arguments: p}})}})
	}
}

// finish sends the finish_reason chunk, the usage chunk when the request
// asked for it (empty choices), and the [DONE] terminator.
func (b *oaBuilder) finish(st *Step, in inbound) {
	reason := st.stopReason(ProtocolOpenAI)
	c := b.base
	c.Choices = []oaChoice{{FinishReason: &reason}}
	b.add(c, true)
	if in.StreamOptions.IncludeUsage {
		c = b.base
		c.Choices = []oaChoice{}
		c.Usage = openAIUsage(st, in)
		b.add(c, true)
	}
	b.events = append(b.events, event{data: "[DONE]", final: true})
}

func openAIUsage(st *Step, in inbound) json.RawMessage {
	u := st.usage(in.size)
	prompt := u.InputTokens + u.CacheReadTokens // OpenAI counts cached input in prompt_tokens
	v := obj{
		"prompt_tokens", prompt,
		"completion_tokens", u.OutputTokens,
		"total_tokens", prompt + u.OutputTokens,
		"prompt_tokens_details", obj{"cached_tokens", u.CacheReadTokens},
		"completion_tokens_details", obj{"reasoning_tokens", 0},
	}
	return json.RawMessage(jsonEvent("", v, true).data)
}

func (openAIWire) brokenEvent() event {
	return event{data: `{"id":"chatcmpl-llmtest","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"content":"tru`}
}

func (w openAIWire) errorEvent(status int, msg string) event {
	return event{data: string(w.errorBody(status, msg, false))}
}

// errorBody mirrors OpenAI's error object; type and code follow the status
// the way the real API reports them.
func (openAIWire) errorBody(status int, msg string, overflow bool) []byte {
	typ, code, text := "invalid_request_error", any(nil), msg
	param := any(nil)
	switch {
	case overflow:
		code, param = "context_length_exceeded", "messages"
		text = "This model's maximum context length is 128000 tokens. However, your messages resulted in 131072 tokens. Please reduce the length of the messages."
	case status == http.StatusUnauthorized:
		code, text = "invalid_api_key", "Incorrect API key provided: sk-llmt****test. You can find your API key at https://platform.openai.com/account/api-keys."
	case status == http.StatusNotFound:
		code, text = "model_not_found", "The model does not exist or you do not have access to it."
	case status == http.StatusTooManyRequests:
		typ, code, text = "requests", "rate_limit_exceeded", "Rate limit reached for requests. Please try again in 1s."
	case status >= 500 || status == 0:
		typ, text = "server_error", "The server had an error while processing your request. Sorry about that!"
	default:
		text = "Invalid request."
	}
	if msg != "" {
		text = msg
	}
	body := obj{"error", obj{"message", text, "type", typ, "param", param, "code", code}}
	return []byte(jsonEvent("", body, false).data)
}

func (openAIWire) requestIDHeader() string { return "x-request-id" }

// keepAlive alternates the comment line OpenAI-compatible servers (and
// proxies such as OpenRouter) send while a model thinks with an empty data
// event, which some servers send as a heartbeat.
func (openAIWire) keepAlive(n int) []byte {
	if n%2 == 0 {
		return []byte(": keep-alive\n\n")
	}
	return []byte("data:\n\n")
}
