//go:build e2e

package e2e

import (
	"maps"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// providerEnv points coder at srv speaking protocol.
func providerEnv(t *testing.T, srv *llmtest.Server, protocol string) map[string]string {
	env := baseEnv(t)
	env["CODER_PROVIDER"] = protocol
	env["CODER_BASE_URL"] = srv.URL() + "/v1"
	env["CODER_API_KEY"] = testKey
	env["CODER_MODEL"] = "fake-model"
	return env
}

// withProvider is a world's environment (its HOME and config) with coder
// pointed at srv.
func withProvider(t *testing.T, env map[string]string, srv *llmtest.Server) map[string]string {
	out := map[string]string{}
	maps.Copy(out, env)
	for k, v := range providerEnv(t, srv, "openai") {
		if strings.HasPrefix(k, "CODER_") {
			out[k] = v
		}
	}
	return out
}

var protocols = []string{"openai", "anthropic"}

// appendScenario runs one bash call that appends a line to count.txt, so a
// second execution of the same call would be visible, then answers.
func appendScenario(faulted llmtest.Step) llmtest.Scenario {
	return llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo ran >> count.txt"}`)),
		faulted,
	}}
}

func TestRetryAfter429AndCutStream(t *testing.T) {
	answer := "All done: the line was appended exactly once."
	faults := map[string]llmtest.Fault{
		"429":      {Kind: llmtest.FaultStatus, Status: 429, RetryAfter: "1"},
		"500":      {Kind: llmtest.FaultStatus, Status: 500},
		"cut":      {Kind: llmtest.FaultCut, AfterChunks: 4},
		"bad json": {Kind: llmtest.FaultMalformed, AfterChunks: 3},
	}
	for _, protocol := range protocols {
		for name, fault := range faults {
			t.Run(protocol+"/"+name, func(t *testing.T) {
				srv := llmtest.NewServer(t, appendScenario(llmtest.Step{Text: answer, Faults: []llmtest.Fault{fault}}))
				dir := t.TempDir()
				res := run{args: []string{"-p", "append a line", "--output-format", "stream-json"},
					env: providerEnv(t, srv, protocol), dir: dir}.exec(t)
				if res.code != 0 {
					t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
				}
				if got := readFile(t, dir, "count.txt"); got != "ran\n" {
					t.Fatalf("the tool ran more than once: count.txt = %q", got)
				}
				evs := streamEvents(t, res.stdout)
				var text strings.Builder
				for _, e := range evs {
					switch e["type"] {
					case "text":
						text.WriteString(e["text"].(string))
					case "stream_reset":
						text.Reset()
					}
				}
				if text.String() != answer {
					t.Fatalf("streamed text after retry %q, want %q", text.String(), answer)
				}
				if last := evs[len(evs)-1]; last["result"] != answer || last["is_error"] != false {
					t.Fatalf("result %v", last)
				}
				if n := len(srv.Requests()); n != 3 {
					t.Fatalf("%d requests, want 3 (one retried)", n)
				}
			})
		}
	}
}

func TestUnauthorizedFailsAtOnceWithoutKey(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{{
				Text:       "never",
				AlwaysFail: true,
				// Some servers echo the key they rejected.
				Faults: []llmtest.Fault{{Kind: llmtest.FaultStatus, Status: 401, Message: "Incorrect API key provided: " + testKey}},
			}}})
			res := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, protocol), dir: t.TempDir()}.exec(t)
			if res.code != 1 {
				t.Fatalf("exit %d, want 1\nstderr: %s", res.code, res.stderr)
			}
			if !strings.Contains(res.stderr, "401") {
				t.Fatalf("stderr does not explain the failure: %s", res.stderr)
			}
			if n := len(srv.Requests()); n != 1 {
				t.Fatalf("401 was retried: %d requests", n)
			}
		})
	}
}

func TestMalformedToolArgumentsContinue(t *testing.T) {
	for _, protocol := range protocols {
		t.Run(protocol, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("read", `{"path": "a.txt"`)),
				llmtest.Text("The arguments were broken; stopping."),
			}})
			res := run{args: []string{"-p", "read a.txt", "--output-format", "json"},
				env: providerEnv(t, srv, protocol), dir: t.TempDir()}.exec(t)
			if res.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", res.code, res.stderr)
			}
			results := lastToolResults(srv.Requests()[1])
			if len(results) != 1 || !strings.Contains(results[0].Text, `"ok":false`) ||
				!strings.Contains(results[0].Text, "invalid JSON arguments") {
				t.Fatalf("tool result %+v", results)
			}
			if !strings.Contains(res.stdout, `"result":"The arguments were broken; stopping."`) {
				t.Fatalf("json output %s", res.stdout)
			}
		})
	}
}

func TestStepLimitExits(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("list", `{}`)),
	}})
	env := providerEnv(t, srv, "openai")
	env["CODER_MAX_STEPS"] = "4"
	res := run{args: []string{"-p", "never stop"}, env: env, dir: t.TempDir()}.exec(t)
	if res.code != 3 || !strings.Contains(res.stderr, "step limit reached") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
	if n := len(srv.Requests()); n != 4 {
		t.Fatalf("%d model calls, want 4", n)
	}
}

func TestNoProviderExplainsHowToConfigure(t *testing.T) {
	res := run{args: []string{"-p", "hi"}, env: baseEnv(t), dir: t.TempDir()}.exec(t)
	if res.code != 2 {
		t.Fatalf("exit %d, want 2", res.code)
	}
	for _, want := range []string{"OPENAI_API_KEY", "ANTHROPIC_API_KEY", "CODER_BASE_URL"} {
		if !strings.Contains(res.stderr, want) {
			t.Fatalf("stderr does not mention %s:\n%s", want, res.stderr)
		}
	}
}

func TestBrokenConfigNamesFileAndKey(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".coder/config.json", `{"runtime": {"max_steps": "many"}}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{})
	res := run{args: []string{"-p", "hi"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 2 || !strings.Contains(res.stderr, "config.json") || !strings.Contains(res.stderr, "runtime.max_steps") {
		t.Fatalf("exit %d, stderr %q", res.code, res.stderr)
	}
}

func TestPipedPromptAndVersion(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("piped answer")}})
	res := run{args: []string{"-p"}, stdin: "what is this?\n", env: providerEnv(t, srv, "openai"), dir: t.TempDir()}.exec(t)
	if res.code != 0 || res.stdout != "piped answer\n" {
		t.Fatalf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
	msgs := srv.Requests()[0].Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, "what is this?") {
		t.Fatalf("prompt not sent: %+v", last)
	}
	v := run{args: []string{"--version"}, env: baseEnv(t), dir: t.TempDir()}.exec(t)
	if v.code != 0 || !strings.HasPrefix(v.stdout, "coder ") {
		t.Fatalf("--version: %d %q", v.code, v.stdout)
	}
}
