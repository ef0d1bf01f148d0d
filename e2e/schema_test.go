//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

const countSchema = `{"type":"object","properties":{"count":{"type":"integer"}},"required":["count"],"additionalProperties":false}`

// TestJSONSchemaOutput: the model is shown the schema; an answer valid
// against it is the result's structured_output; a mismatch goes back to
// the model once with what failed, and a second mismatch fails the run
// with its own subtype and exit code.
func TestJSONSchemaOutput(t *testing.T) {
	sawSchema := func(r llmtest.Request) error {
		if m := r.Messages(); len(m) == 0 || !strings.Contains(m[0].Text, `"required":["count"]`) {
			return fmt.Errorf("the request does not carry the schema: %+v", m)
		}
		return nil
	}
	toldWhy := func(why string) func(llmtest.Request) error {
		return func(r llmtest.Request) error {
			m := r.Messages()
			last := m[len(m)-1]
			if last.Role != "user" || !strings.Contains(last.Text, "not valid against the JSON Schema") || !strings.Contains(last.Text, why) {
				return fmt.Errorf("the retry does not say what failed (%s): %+v", why, last)
			}
			return nil
		}
	}
	for _, tc := range []struct {
		name    string
		answers []string
		why     string // what the retry must name
		code    int
		subtype string
	}{
		{"valid", []string{`{"count": 4}`}, "", 0, "success"},
		{"fixed on the retry", []string{"There are four.", `{"count": 4}`}, "not JSON", 0, "success"},
		{"wrong twice", []string{`{"count": "four"}`, `{"count": 4.5}`}, "count", 5, "error_max_structured_output_retries"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			steps := []llmtest.Step{{Text: tc.answers[0], Check: sawSchema}}
			for _, a := range tc.answers[1:] {
				steps = append(steps, llmtest.Step{Text: a, Check: toldWhy(tc.why)})
			}
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: steps})
			dir := t.TempDir()
			writeFile(t, dir, "schema.json", countSchema)
			res := run{args: []string{"-p", "count the go files", "--json-schema", "schema.json", "--output-format", "json"},
				env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
			out := resultObject(t, res)
			if res.code != tc.code || out["subtype"] != tc.subtype || len(srv.Requests()) != len(tc.answers) {
				t.Fatalf("exit %d, %d requests, result %v\nstderr %s", res.code, len(srv.Requests()), out, res.stderr)
			}
			if tc.code == 0 {
				b, _ := json.Marshal(out["structured_output"])
				if string(b) != `{"count":4}` {
					t.Fatalf("structured_output %s", b)
				}
			} else if msg, _ := out["error"].(string); !strings.Contains(msg, "not valid against the JSON schema") {
				t.Fatalf("error %q", msg)
			}
		})
	}
	// A schema that is not one is a usage error, before any call.
	srv := llmtest.NewServer(t, llmtest.Scenario{})
	dir := t.TempDir()
	writeFile(t, dir, "bad.json", `{"type": 7}`)
	res := run{args: []string{"-p", "x", "--json-schema", "bad.json"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 2 || !strings.Contains(res.stderr, "--json-schema bad.json") || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d stderr %s", res.code, res.stderr)
	}
}
