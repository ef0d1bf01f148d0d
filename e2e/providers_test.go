//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// resultObject decodes the --output-format json result.
func resultObject(t *testing.T, res result) map[string]any {
	t.Helper()
	var out map[string]any
	if err := json.Unmarshal([]byte(res.stdout), &out); err != nil {
		t.Fatalf("json output: %v\nstdout: %s\nstderr: %s", err, res.stdout, res.stderr)
	}
	return out
}

// reasoningPassedBack checks that a Responses request carries back the
// reasoning items of every earlier step, encrypted content and id intact,
// each step's comment with its phase, the calls and their outputs.
func reasoningPassedBack(steps int) func(llmtest.Request) error {
	return func(r llmtest.Request) error {
		var body struct {
			Store   bool     `json:"store"`
			Include []string `json:"include"`
		}
		_ = json.Unmarshal(r.Body, &body)
		if body.Store || len(body.Include) == 0 {
			return fmt.Errorf("store %v include %v", body.Store, body.Include)
		}
		var items, outputs int
		for _, m := range r.Messages() {
			for _, it := range m.ReasoningItems {
				if !strings.Contains(it, llmtest.FakeEncrypted(items)) || !strings.Contains(it, fmt.Sprintf(`"id":"rs_llmtest_%d"`, items)) {
					return fmt.Errorf("reasoning item %d sent back as %s", items, it)
				}
				items++
			}
			if m.Role == "assistant" && (m.Text == "" || len(m.Phases) != 1 || m.Phases[0] != "commentary") {
				return fmt.Errorf("step comment %q sent back with phases %q", m.Text, m.Phases)
			}
			if m.Role == "tool" {
				outputs++
			}
		}
		if items != steps || outputs != steps {
			return fmt.Errorf("%d reasoning items and %d call outputs sent back, want %d each", items, outputs, steps)
		}
		return nil
	}
}

// TestResponsesToolTaskPassesReasoningBack runs a three-step task over the
// Responses API: each request carries every earlier reasoning item back.
func TestResponsesToolTaskPassesReasoningBack(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Reasoning: "I will write the file first.", Text: "Writing it.", ToolCalls: []llmtest.ToolCall{llmtest.Call("write", `{"path":"notes.txt","content":"alpha\n"}`)}},
		{Reasoning: "Now read it back.", Text: "Reading it.", ToolCalls: []llmtest.ToolCall{llmtest.Call("read", `{"path":"notes.txt"}`)}, Check: reasoningPassedBack(1)},
		{Reasoning: "It holds alpha.", Text: "notes.txt holds alpha.", Check: reasoningPassedBack(2)},
	}})
	env := providerEnv(t, srv, "openai-responses")
	env["CODER_MODEL"] = "gpt-5"
	dir := t.TempDir()
	res := run{args: []string{"-p", "write notes.txt and read it back", "--output-format", "json"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
	}
	out := resultObject(t, res)
	if out["result"] != "notes.txt holds alpha." || out["is_error"] != false || out["num_turns"] != 3.0 {
		t.Fatalf("result %v", out)
	}
	if got := readFile(t, dir, "notes.txt"); got != "alpha\n" {
		t.Fatalf("notes.txt = %q", got)
	}
	for _, r := range srv.Requests() {
		if r.Path != "/v1/responses" {
			t.Fatalf("request to %s", r.Path)
		}
	}
}

// TestTruncatedAnswerFails: an answer the output limit cut is a failure in
// every protocol — exit 1, is_error, a subtype naming it, and a message
// saying reasoning used the budget.
func TestTruncatedAnswerFails(t *testing.T) {
	for _, protocol := range []string{"openai", "anthropic", "openai-responses"} {
		t.Run(protocol, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				{Reasoning: "Considering every option at great length…", Truncated: true},
			}})
			res := run{args: []string{"-p", "think hard", "--output-format", "json"}, env: providerEnv(t, srv, protocol), dir: t.TempDir()}.exec(t)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
			}
			out := resultObject(t, res)
			msg, _ := out["error"].(string)
			if out["is_error"] != true || out["subtype"] != "error_max_output_tokens" ||
				!strings.Contains(msg, "cut by the output limit") || !strings.Contains(msg, "reasoning used the whole budget") {
				t.Fatalf("result %v", out)
			}
		})
	}
}

func TestTruncatedTextIsContinued(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "The list: one, two, ", Truncated: true},
		{Text: "three."},
	}})
	res := run{args: []string{"-p", "list three things"}, env: providerEnv(t, srv, "anthropic"), dir: t.TempDir()}.exec(t)
	if res.code != 0 || strings.TrimSpace(res.stdout) != "The list: one, two, three." {
		t.Fatalf("exit %d stdout %q stderr %s", res.code, res.stdout, res.stderr)
	}
}
