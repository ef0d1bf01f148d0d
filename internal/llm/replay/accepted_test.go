package replay

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/openai"
)

// fieldSet names the fields of Chat Completions bodies: "body.<key>",
// "<role>.<key>" for each message, "tool_call.<key>" and
// "tool_call.function.<key>", and "<role>.content[<type>]" for each part
// of an array content.
type fieldSet map[string]bool

func (s fieldSet) add(body map[string]any) {
	for k := range body {
		s["body."+k] = true
	}
	msgs, _ := body["messages"].([]any)
	for _, m := range msgs {
		mm, _ := m.(map[string]any)
		role, _ := mm["role"].(string)
		for k := range mm {
			s[role+"."+k] = true
		}
		parts, _ := mm["content"].([]any)
		for _, p := range parts {
			typ, _ := p.(map[string]any)["type"].(string)
			s[role+".content["+typ+"]"] = true
		}
		calls, _ := mm["tool_calls"].([]any)
		for _, c := range calls {
			cm, _ := c.(map[string]any)
			for k := range cm {
				s["tool_call."+k] = true
			}
			fn, _ := cm["function"].(map[string]any)
			for k := range fn {
				s["tool_call.function."+k] = true
			}
		}
	}
}

// outside lists the fields of s that accepted lacks.
func (s fieldSet) outside(accepted fieldSet) []string {
	var out []string
	for f := range s {
		if !accepted[f] {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// mistralDocumented are fields Mistral's API reference documents that no
// recorded request happens to carry: max_tokens (docs.mistral.ai, API,
// "Chat Completion": max_tokens).
var mistralDocumented = []string{"body.max_tokens"}

// TestMistralGetsOnlyWhatItAccepted replays every recorded Mistral stream
// and, for each, the turn after it (the assistant message, its thinking
// parts and calls, the results), and holds every field coder sends, at
// every level, to the fields Mistral accepted in the recorded requests of
// its own users' clients (testdata/followups/mistral-accepted-requests.json)
// or documents. Mistral answers any other with 422 "Extra inputs are not
// permitted".
func TestMistralGetsOnlyWhatItAccepted(t *testing.T) {
	t.Parallel()
	accepted := fieldSet{}
	for _, f := range mistralDocumented {
		accepted[f] = true
	}
	for _, a := range loadFollowups(t).Accepted {
		if a.Provider != "mistral" {
			continue
		}
		b, err := os.ReadFile("testdata/followups/" + a.File)
		if err != nil {
			t.Fatal(err)
		}
		var reqs []struct {
			Status int
			Body   map[string]any
		}
		if err := json.Unmarshal(b, &reqs); err != nil {
			t.Fatal(err)
		}
		for _, r := range reqs {
			if r.Status == 200 {
				accepted.add(r.Body)
			}
		}
	}
	// The control: what coder sends elsewhere is not all accepted here.
	control := fieldSet{}
	control.add(map[string]any{"stream_options": map[string]any{}, "max_completion_tokens": 1,
		"messages": []any{map[string]any{"role": "assistant", "reasoning_content": "x"}}})
	if got := control.outside(accepted); len(got) != 3 {
		t.Fatalf("the accepted fields take %v: the check could not fail", control)
	}
	var recs []recording
	for _, r := range load(t) {
		if r.Provider == "mistral" && r.Kind == "stream" {
			recs = append(recs, r)
		}
	}
	if len(recs) == 0 {
		t.Fatal("no Mistral recordings")
	}
	srv := newServer(t, recs)
	for i, rec := range recs {
		p := openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: fmt.Sprintf("%s/r/%d/v1", srv.URL, i), APIKey: "sk-replay", Catalog: "mistral", Label: "Mistral"}, Model: rec.RequestModel, MaxTokens: 4096, ReasoningEffort: "high"})
		if err := turnAndNext(p); err != nil {
			t.Errorf("%s: %v", rec.File, err)
			continue
		}
		sent := fieldSet{}
		srv.mu.Lock()
		bodies := srv.bodies[i]
		srv.mu.Unlock()
		for _, b := range bodies {
			var body map[string]any
			if err := json.Unmarshal([]byte(b), &body); err != nil {
				t.Fatal(err)
			}
			sent.add(body)
		}
		if extra := sent.outside(accepted); len(extra) > 0 {
			t.Errorf("%s (%s): sent %s, which Mistral was never seen to accept", rec.File, rec.RequestModel, strings.Join(extra, ", "))
		}
	}
}

// turnAndNext streams the recording, then the next request: the tool
// results when calls came, else another user message.
func turnAndNext(p llm.Provider) error {
	history := []chat.Message{{Role: chat.RoleUser, Content: "hi"}}
	var acc llm.Accumulator
	if err := p.Stream(context.Background(), llm.Request{RunID: "replay", Messages: history}, func(d chat.MessageDelta) { acc.Add(d) }); err != nil {
		return err
	}
	msg := acc.Message()
	for i := range msg.ToolCalls {
		if msg.ToolCalls[i].ID == "" { // as the orchestrator names them
			msg.ToolCalls[i].ID = fmt.Sprintf("call_replay_%d", i)
		}
	}
	history = append(history, msg)
	for _, c := range msg.ToolCalls {
		history = append(history, chat.Message{Role: chat.RoleTool, ToolCallID: c.ID, ToolName: c.Name, Content: "ok"})
	}
	if len(msg.ToolCalls) == 0 {
		history = append(history, chat.Message{Role: chat.RoleUser, Content: "and then?"})
	}
	return p.Stream(context.Background(), llm.Request{RunID: "replay", ModelCallIndex: 2, Messages: history}, func(chat.MessageDelta) {})
}
