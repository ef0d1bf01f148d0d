package llmtest

// A deliberately independent raw client: plain net/http and a hand-written
// SSE reader, so these tests check the fake against the wire formats rather
// than against the production providers.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

type sse struct{ name, data string }

// readSSE reads events until the body ends. err is nil only for a clean
// end; a dropped connection surfaces as io.ErrUnexpectedEOF.
func readSSE(body io.Reader) ([]sse, error) {
	var out []sse
	var cur sse
	sc := bufio.NewScanner(body)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "":
			if cur.data != "" || cur.name != "" {
				out = append(out, cur)
			}
			cur = sse{}
		case strings.HasPrefix(line, "event: "):
			cur.name = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			cur.data = strings.TrimPrefix(line, "data: ")
		}
	}
	return out, sc.Err()
}

// post sends body as JSON and returns the response; the caller closes it.
func post(t *testing.T, ctx context.Context, url string, body any) *http.Response {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	return resp
}

// streamOnce posts and reads the whole SSE body.
func streamOnce(t *testing.T, url string, body any) (*http.Response, []sse, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	resp := post(t, ctx, url, body)
	defer resp.Body.Close()
	events, err := readSSE(resp.Body)
	return resp, events, err
}

func openAIBody(includeUsage bool) map[string]any {
	b := map[string]any{
		"model":    "gpt-test",
		"stream":   true,
		"messages": []any{map[string]any{"role": "user", "content": "hi"}},
	}
	if includeUsage {
		b["stream_options"] = map[string]any{"include_usage": true}
	}
	return b
}

func anthropicBody() map[string]any {
	return map[string]any{
		"model":      "claude-test",
		"stream":     true,
		"max_tokens": 1024,
		"messages":   []any{map[string]any{"role": "user", "content": "hi"}},
	}
}

func decode(t *testing.T, data string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(data), &v); err != nil {
		t.Fatalf("bad JSON %q: %v", data, err)
	}
	return v
}

// oaResult is an OpenAI stream reassembled the way a client must.
type oaResult struct {
	role, reasoning, text, finish string
	calls                         []ToolCall
	usage                         map[string]any
	done                          bool
	contentChunks, argChunks      int
}

func assembleOpenAI(t *testing.T, events []sse) oaResult {
	t.Helper()
	var r oaResult
	byKey := map[string]int{} // tool call index (or id when omitted) → position
	for i, e := range events {
		if r.done {
			t.Fatalf("event after [DONE]: %q", e.data)
		}
		if e.data == "[DONE]" {
			r.done = true
			continue
		}
		var c struct {
			Object  string
			Choices []struct {
				Delta struct {
					Role             string
					Content          string
					ReasoningContent string `json:"reasoning_content"`
					ToolCalls        []struct {
						Index    *int
						ID, Type string
						Function struct{ Name, Arguments string }
					} `json:"tool_calls"`
				}
				FinishReason *string `json:"finish_reason"`
			}
			Usage map[string]any
		}
		if err := json.Unmarshal([]byte(e.data), &c); err != nil {
			t.Fatalf("event %d: %v", i, err)
		}
		if c.Object != "chat.completion.chunk" {
			t.Fatalf("object = %q", c.Object)
		}
		if len(c.Choices) == 0 {
			r.usage = c.Usage
			continue
		}
		d := c.Choices[0].Delta
		if d.Role != "" {
			r.role = d.Role
		}
		r.reasoning += d.ReasoningContent
		if d.Content != "" {
			r.text += d.Content
			r.contentChunks++
		}
		for _, tc := range d.ToolCalls {
			key := tc.ID
			if tc.Index != nil {
				key = strconv.Itoa(*tc.Index)
			}
			pos, ok := byKey[key]
			if !ok {
				if tc.Function.Name == "" || tc.ID == "" || tc.Type != "function" {
					t.Fatalf("first delta of a call lacks id/type/name: %+v", tc)
				}
				pos = len(r.calls)
				byKey[key] = pos
				r.calls = append(r.calls, ToolCall{ID: tc.ID, Name: tc.Function.Name})
			} else if tc.Function.Name != "" || (tc.Index != nil && tc.ID != "") {
				t.Fatalf("argument fragment repeats name or id: %+v", tc)
			}
			if tc.Function.Arguments != "" {
				r.argChunks++
			}
			r.calls[pos].Args += tc.Function.Arguments
		}
		if f := c.Choices[0].FinishReason; f != nil {
			r.finish = *f
		}
	}
	return r
}

// anResult is an Anthropic stream reassembled the way a client must.
type anResult struct {
	names                      []string // event names in order
	blockTypes                 []string // content block types by index
	reasoning, signature, text string
	calls                      []ToolCall
	stop, model, id            string
	inputTokens, outputTokens  int
	textChunks, argChunks      int
	stopped                    bool
}

func assembleAnthropic(t *testing.T, events []sse) anResult {
	t.Helper()
	var r anResult
	for _, e := range events {
		r.names = append(r.names, e.name)
		v := decode(t, e.data)
		if v["type"] != e.name {
			t.Fatalf("event %q carries type %v", e.name, v["type"])
		}
		switch e.name {
		case "message_start":
			m := v["message"].(map[string]any)
			r.id, r.model = m["id"].(string), m["model"].(string)
			r.inputTokens = int(m["usage"].(map[string]any)["input_tokens"].(float64))
		case "content_block_start":
			r.blockStart(t, v)
		case "content_block_delta":
			r.blockDelta(t, v)
		case "message_delta":
			r.stop = v["delta"].(map[string]any)["stop_reason"].(string)
			r.outputTokens = int(v["usage"].(map[string]any)["output_tokens"].(float64))
		case "message_stop":
			r.stopped = true
		}
	}
	return r
}

func (r *anResult) blockStart(t *testing.T, v map[string]any) {
	if int(v["index"].(float64)) != len(r.blockTypes) {
		t.Fatalf("block index %v, want %d", v["index"], len(r.blockTypes))
	}
	b := v["content_block"].(map[string]any)
	typ := b["type"].(string)
	r.blockTypes = append(r.blockTypes, typ)
	if typ == "tool_use" {
		if len(b["input"].(map[string]any)) != 0 {
			t.Fatalf("tool_use starts with input %v", b["input"])
		}
		r.calls = append(r.calls, ToolCall{ID: b["id"].(string), Name: b["name"].(string)})
	}
}

func (r *anResult) blockDelta(t *testing.T, v map[string]any) {
	idx := int(v["index"].(float64))
	if idx != len(r.blockTypes)-1 {
		t.Fatalf("delta for block %d while block %d is open", idx, len(r.blockTypes)-1)
	}
	d := v["delta"].(map[string]any)
	switch d["type"] {
	case "thinking_delta":
		r.reasoning += d["thinking"].(string)
	case "signature_delta":
		r.signature += d["signature"].(string)
	case "text_delta":
		r.text += d["text"].(string)
		r.textChunks++
	case "input_json_delta":
		r.calls[len(r.calls)-1].Args += d["partial_json"].(string)
		r.argChunks++
	default:
		t.Fatalf("unknown delta %v", d)
	}
}
