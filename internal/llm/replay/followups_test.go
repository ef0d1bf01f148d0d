package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/responses"
)

// followups is testdata/followups/manifest.json: recorded exchanges whose
// next request, as the recording's client sent it and the endpoint
// accepted it, is recorded too (see the README there).
type followups struct {
	Cases []struct {
		Name, Provider, Protocol, URL string
		RequestModel                  string `json:"request_model"`
		Response                      string
		Followup                      string
		FollowupStatus                int `json:"followup_status"`
	}
	Accepted []struct{ File, Provider string }
}

func loadFollowups(t *testing.T) followups {
	t.Helper()
	b, err := os.ReadFile("testdata/followups/manifest.json")
	if err != nil {
		t.Fatal(err)
	}
	var f followups
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	return f
}

// bodyLog is a loopback endpoint answering its first request with a
// recorded body and later ones with a short answer, keeping each request.
type bodyLog struct {
	*httptest.Server
	mu     sync.Mutex
	bodies []string
	paths  []string
}

func newBodyLog(t *testing.T, first []byte, protocol string) *bodyLog {
	l := &bodyLog{}
	l.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		l.mu.Lock()
		l.bodies, l.paths = append(l.bodies, string(b)), append(l.paths, r.URL.Path)
		n := len(l.bodies)
		l.mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		if n == 1 {
			_, _ = w.Write(first)
			return
		}
		_, _ = io.WriteString(w, shortAnswer(protocol))
	}))
	t.Cleanup(l.Close)
	return l
}

func (l *bodyLog) sent() ([]string, []string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]string(nil), l.bodies...), append([]string(nil), l.paths...)
}

// TestReplayFollowUps serves each recorded Responses API stream to coder,
// answers its function calls with the outputs the recording's client
// sent, and holds coder's next request to the client's: the same items
// after the user message, in the same order: reasoning items with their
// ids and inline reasoning, messages with their phase, the calls and
// their outputs. Item ids of messages and calls are not compared: coder
// sends none (call_id links a call to its output; Codex CLI sends none
// either).
func TestReplayFollowUps(t *testing.T) {
	t.Parallel()
	f := loadFollowups(t)
	if len(f.Cases) == 0 {
		t.Fatal("no follow-up cases")
	}
	for _, c := range f.Cases {
		t.Run(c.Name, func(t *testing.T) {
			t.Parallel()
			stream, err := os.ReadFile("testdata/followups/" + c.Response)
			if err != nil {
				t.Fatal(err)
			}
			raw, err := os.ReadFile("testdata/followups/" + c.Followup)
			if err != nil {
				t.Fatal(err)
			}
			var recorded struct {
				Input []map[string]any `json:"input"`
			}
			if err := json.Unmarshal(raw, &recorded); err != nil || c.FollowupStatus != 200 {
				t.Fatalf("follow-up %s: %v (status %d)", c.Followup, err, c.FollowupStatus)
			}
			want := canonicalItems(recorded.Input[1:])
			if ids, phases := counts(want); ids == 0 || (c.Provider == "openai" && phases == 0) {
				t.Fatalf("the recorded follow-up holds %d reasoning ids and %d phases: not the case it claims", ids, phases)
			}
			l := newBodyLog(t, stream, c.Protocol)
			p := responses.New(responses.Config{Endpoint: llm.Endpoint{BaseURL: l.URL + "/v1", APIKey: "sk-replay", Catalog: catalogOf[c.Provider], Label: c.Provider}, Model: c.RequestModel})
			items, err := followUp(p, l, recorded.Input)
			if err != nil {
				t.Fatal(err)
			}
			// The recording's serializer (pydantic-ai's
			// tests/json_body_serializer.py) wrote request bodies with
			// smart quotes, dashes and ellipses made ASCII, not streams.
			got := mustString(ascii(items))
			if got != mustString(want) {
				t.Errorf("coder's next input items\n  got  %s\n  want %s (the recorded client's)", got, mustString(want))
			}
		})
	}
}

// followUp runs the recorded turn through p, served by l, and returns the
// canonical items coder sends after the user message in the next request.
func followUp(p llm.Provider, l *bodyLog, input []map[string]any) ([]map[string]any, error) {
	user, _ := input[0]["content"].(string)
	history := []chat.Message{{Role: chat.RoleUser, Content: user}}
	var acc llm.Accumulator
	if err := p.Stream(context.Background(), llm.Request{RunID: "replay", Messages: history}, func(d chat.MessageDelta) { acc.Add(d) }); err != nil {
		return nil, fmt.Errorf("the recorded stream: %w", err)
	}
	msg := acc.Message()
	history = append(history, msg)
	for _, c := range msg.ToolCalls {
		out := ""
		for _, it := range input {
			if it["type"] == "function_call_output" && it["call_id"] == c.ID {
				out, _ = it["output"].(string)
			}
		}
		history = append(history, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: out})
	}
	if err := p.Stream(context.Background(), llm.Request{RunID: "replay", ModelCallIndex: 2, Messages: history}, func(chat.MessageDelta) {}); err != nil {
		return nil, fmt.Errorf("the follow-up: %w", err)
	}
	bodies, _ := l.sent()
	var sent struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal([]byte(bodies[1]), &sent); err != nil || len(sent.Input) < 1 {
		return nil, fmt.Errorf("the follow-up body: %v: %s", err, bodies[1])
	}
	return canonicalItems(sent.Input[1:]), nil
}

// canonicalItems keeps what a follow-up's items must carry: a reasoning
// item's id and reasoning (encrypted_content when set, content when not
// empty, summary); a message's role, phase and text; a call's call_id,
// name and arguments; an output's call_id and output.
func canonicalItems(items []map[string]any) []map[string]any {
	var out []map[string]any
	for _, it := range items {
		c := map[string]any{}
		switch typ, _ := it["type"].(string); {
		case typ == "reasoning":
			c["type"], c["id"], c["summary"] = typ, it["id"], it["summary"]
			if it["encrypted_content"] != nil {
				c["encrypted_content"] = it["encrypted_content"]
			}
			if parts, _ := it["content"].([]any); len(parts) > 0 {
				c["content"] = parts
			}
		case typ == "function_call":
			c["type"], c["call_id"], c["name"], c["arguments"] = typ, it["call_id"], it["name"], it["arguments"]
		case typ == "function_call_output":
			c["type"], c["call_id"], c["output"] = typ, it["call_id"], it["output"]
		default:
			c["type"], c["role"], c["text"] = "message", it["role"], textOfItem(it["content"])
			if ph, _ := it["phase"].(string); ph != "" {
				c["phase"] = ph
			}
		}
		out = append(out, normalizeJSON(c).(map[string]any))
	}
	return out
}

func textOfItem(content any) string {
	if s, ok := content.(string); ok {
		return s
	}
	var b strings.Builder
	parts, _ := content.([]any)
	for _, p := range parts {
		if pm, _ := p.(map[string]any); pm["type"] == "output_text" || pm["type"] == "input_text" {
			s, _ := pm["text"].(string)
			b.WriteString(s)
		}
	}
	return b.String()
}

// asciiQuotes is the recording serializer's normalization.
var asciiQuotes = strings.NewReplacer("\u2018", "'", "\u2019", "'", "\u201c", `"`, "\u201d", `"`,
	"\u2013", "-", "\u2014", "--", "\u2026", "...")

func mustString(v any) string { return string(mustJSON(v)) }

// ascii applies asciiQuotes to every string in v, decoded JSON.
func ascii(v any) any {
	switch x := v.(type) {
	case string:
		return asciiQuotes.Replace(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ascii(e)
		}
		return out
	case []map[string]any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = ascii(e)
		}
		return out
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			out[k] = ascii(e)
		}
		return out
	}
	return v
}

// counts is how many reasoning ids and message phases items hold.
func counts(items []map[string]any) (ids, phases int) {
	for _, it := range items {
		if it["type"] == "reasoning" && it["id"] != nil {
			ids++
		}
		if it["phase"] != nil {
			phases++
		}
	}
	return ids, phases
}
