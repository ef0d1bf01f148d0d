//go:build e2e

package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

const (
	calcGo     = "package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n"
	calcTestGo = "package calc\n\nimport \"testing\"\n\nfunc TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t\tt.Fatalf(\"Add(2, 3) = %d\", got)\n\t}\n}\n"
	finalText  = "Fixed Add: it subtracted instead of adding. The tests pass."
)

// calcWorkspace is a Go module with a bug in Add.
func calcWorkspace(t *testing.T) string {
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module calc\n\ngo 1.21\n")
	writeFile(t, dir, "calc.go", calcGo)
	writeFile(t, dir, "calc_test.go", calcTestGo)
	return dir
}

// fixScenario: glob → grep → read → edit → bash → final answer.
func fixScenario(verify string) llmtest.Scenario {
	return llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "Let me look at the Go files.", ToolCalls: []llmtest.ToolCall{llmtest.Call("glob", `{"pattern":"**/*.go"}`)}},
		llmtest.Calls(llmtest.Call("grep", `{"pattern":"func Add","include":"*.go"}`)),
		{Reasoning: "Add is in calc.go; read it.", ToolCalls: []llmtest.ToolCall{llmtest.Call("read", `{"path":"calc.go"}`)}},
		llmtest.Calls(llmtest.Call("edit", `{"path":"calc.go","old_string":"return a - b","new_string":"return a + b"}`)),
		llmtest.Calls(llmtest.Call("bash", `{"command":`+quoteJSON(verify)+`}`)),
		llmtest.Text(finalText),
	}}
}

func quoteJSON(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

func TestToolTaskOpenAI(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: the task's verification step runs go test")
	}
	runToolTask(t, "openai", "go test ./...", "ok")
}

func TestToolTaskAnthropic(t *testing.T) {
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go is not on PATH: auto-verify runs go test")
	}
	runToolTask(t, "anthropic", "grep -c 'a + b' calc.go", "1")
}

func runToolTask(t *testing.T, protocol, verify, verifyOut string) {
	srv := llmtest.NewServer(t, fixScenario(verify))
	dir := calcWorkspace(t)
	env := baseEnv(t)
	env["CODER_PROVIDER"] = protocol
	env["CODER_BASE_URL"] = srv.URL() // no /v1: both forms must work
	env["CODER_API_KEY"] = testKey
	env["CODER_MODEL"] = "fake-model"
	res := run{args: []string{"-p", "fix the bug in Add", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	if got := readFile(t, dir, "calc.go"); !strings.Contains(got, "return a + b") || strings.Contains(got, "a - b") {
		t.Fatalf("calc.go was not fixed:\n%s", got)
	}

	evs := streamEvents(t, res.stdout)
	assertEventOrder(t, evs)
	last := evs[len(evs)-1]
	if last["type"] != "result" || last["subtype"] != "success" || last["is_error"] != false || last["result"] != finalText {
		t.Fatalf("result event %v", last)
	}
	if last["num_turns"].(float64) != 6 || last["session_id"] == "" {
		t.Fatalf("result event %v", last)
	}
	// The orchestrator ran the project's tests itself after the edit (and
	// gopls, where it is installed and started in time, checked it).
	if v, _ := last["verification"].(string); strings.TrimSuffix(v, ", LSP clean") != "verified: go test ./... (exit 0)" {
		t.Fatalf("verification %v", last["verification"])
	}

	reqs := srv.Requests()
	if len(reqs) != 6 {
		t.Fatalf("%d model requests, want 6", len(reqs))
	}
	for _, r := range reqs {
		if r.Protocol != protocol {
			t.Fatalf("request went to %s, want %s", r.Protocol, protocol)
		}
		auth := r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")
		if !strings.Contains(auth, testKey) {
			t.Fatalf("request carried no API key header")
		}
	}
	// Each request carries the previous step's tool result back.
	wantInResult := []string{"calc_test.go", "calc.go:4:func Add", "return a - b", "calc.go", verifyOut}
	for i, want := range wantInResult {
		results := lastToolResults(reqs[i+1])
		if len(results) != 1 || !strings.Contains(results[0].Text, want) || results[0].IsError {
			t.Fatalf("request %d: tool results %+v, want one containing %q", i+1, results, want)
		}
	}
	if !strings.Contains(lastToolResults(reqs[5])[0].Text, `"ok":true`) {
		t.Fatalf("bash result %s", lastToolResults(reqs[5])[0].Text)
	}
}

// lastToolResults are the tool results at the end of a request's history.
func lastToolResults(r llmtest.Request) []llmtest.Msg {
	msgs := r.Messages()
	i := len(msgs)
	for i > 0 && msgs[i-1].Role == "tool" {
		i--
	}
	return msgs[i:]
}

// assertEventOrder checks the stream shows every step in order: session
// first, the five tools started and finished in order, the streamed text,
// and the result last.
func assertEventOrder(t *testing.T, evs []map[string]any) {
	t.Helper()
	if len(evs) == 0 || evs[0]["type"] != "session" {
		t.Fatalf("first event %v, want session", evs)
	}
	var seq []string
	var text strings.Builder
	for _, e := range evs {
		switch e["type"] {
		case "tool_start":
			seq = append(seq, "start:"+e["name"].(string))
		case "tool_done":
			seq = append(seq, "done:"+e["name"].(string))
			if e["ok"] != true {
				t.Fatalf("tool failed: %v", e)
			}
		case "text":
			text.WriteString(e["text"].(string))
		}
	}
	want := "start:glob,done:glob,start:grep,done:grep,start:read,done:read,start:edit,done:edit,start:bash,done:bash,start:bash,done:bash"
	if got := strings.Join(seq, ","); got != want {
		t.Fatalf("tool events\n got %s\nwant %s", got, want)
	}
	if text.String() != "Let me look at the Go files."+finalText {
		t.Fatalf("streamed text %q", text.String())
	}
}
