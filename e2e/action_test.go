//go:build e2e

package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// actionRun runs the GitHub Action's entry script (scripts/action/run.sh)
// as its step would, with the GitHub files in a temp dir.
type actionRun struct {
	code                       int
	output                     string
	summary, outputs, artifact string
}

func runActionScript(t *testing.T, env map[string]string, dir, prompt string) actionRun {
	t.Helper()
	if _, err := exec.LookPath("jq"); err != nil {
		t.Skip("jq is not installed (GitHub's runners have it; .ci/run installs it)")
	}
	script, err := filepath.Abs("../scripts/action/run.sh")
	if err != nil {
		t.Fatal(err)
	}
	gh := t.TempDir()
	r := actionRun{summary: filepath.Join(gh, "summary.md"), outputs: filepath.Join(gh, "output"),
		artifact: filepath.Join(gh, "coder-transcript")}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	cmd.Env = append(cmd.Env, "INPUT_PROMPT="+prompt, "INPUT_WORKING_DIRECTORY="+dir, "CODER_BIN="+coderBin,
		"CODER_ARTIFACT_DIR="+r.artifact, "GITHUB_STEP_SUMMARY="+r.summary, "GITHUB_OUTPUT="+r.outputs, "RUNNER_TEMP="+gh)
	out, err := cmd.CombinedOutput()
	r.output = string(out)
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.output, testKey) {
		t.Fatal("the API key appeared in the action's output")
	}
	return r
}

// TestActionEntryScript runs the action's entry script against the fake
// model: one headless turn in the sandbox (a write outside the workspace
// refused, one inside kept), the stream-json transcript and the session's
// JSON in the artifact directory, the answer in the job summary and the
// step's outputs; a failed run fails the step and says why.
func TestActionEntryScript(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	outside := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"bash w.sh; echo kept > inside.txt"}`)),
		llmtest.Text("Reviewed the repository.\nAll good."),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "w.sh", "echo x > "+filepath.Join(outside, "escape.txt")+"\n")
	r := runActionScript(t, providerEnv(t, srv, "openai"), dir, "review this repository")
	if r.code != 0 {
		t.Fatalf("the entry script failed (%d):\n%s", r.code, r.output)
	}
	transcript := readFile(t, r.artifact, "transcript.jsonl")
	evs := streamEvents(t, transcript)
	last := evs[len(evs)-1]
	if last["type"] != "result" || last["result"] != "Reviewed the repository.\nAll good." {
		t.Fatalf("the transcript's last event: %v", last)
	}
	id, _ := last["session_id"].(string)
	if session := readFile(t, r.artifact, "session.json"); id == "" || !strings.Contains(session, id) {
		t.Fatalf("the session's JSON is not in the artifact (session %q)", id)
	}
	// The turn ran in the sandbox: the write outside was refused, the one
	// inside kept.
	if _, err := os.Stat(filepath.Join(outside, "escape.txt")); err == nil {
		t.Fatal("the action's run wrote outside the workspace")
	}
	if got := readFile(t, dir, "inside.txt"); got != "kept\n" {
		t.Fatalf("the write inside the workspace (positive control): %q", got)
	}
	summary := readFile(t, r.summary, "")
	if !strings.Contains(summary, "Reviewed the repository.\nAll good.") || !strings.Contains(summary, "sandbox level") {
		t.Fatalf("job summary:\n%s", summary)
	}
	outputs := readFile(t, r.outputs, "")
	for _, want := range []string{"exit-code=0\n", "session-id=" + id + "\n", "result<<", "Reviewed the repository.\nAll good.\n",
		"transcript=" + filepath.Join(r.artifact, "transcript.jsonl")} {
		if !strings.Contains(outputs, want) {
			t.Fatalf("step outputs lack %q:\n%s", want, outputs)
		}
	}

	// A run that fails (the provider rejects the key) fails the step.
	bad := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Faults: []llmtest.Fault{{Kind: llmtest.FaultStatus, Status: 401}}, AlwaysFail: true}}})
	r = runActionScript(t, providerEnv(t, bad, "openai"), dir, "again")
	if r.code == 0 || !strings.Contains(r.output, "::error::coder exited with code") {
		t.Fatalf("a failed run: exit %d\n%s", r.code, r.output)
	}
	if s := readFile(t, r.summary, ""); !strings.Contains(s, "coder exited with code") {
		t.Fatalf("the failure is not in the summary:\n%s", s)
	}
}
