//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// TestREPLSandboxEscalation: a command the sandbox refused is offered to
// the person for one re-run outside it (y/n only); yes runs it unconfined
// and the model is told so.
func TestREPLSandboxEscalation(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	outside := t.TempDir()
	target := filepath.Join(outside, "planted")
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("touch " + target)),
		llmtest.Text("planted it"),
	}})
	dir := t.TempDir()
	s := startTmux(t, srv, dir, nil)
	s.typeText("plant a file outside")
	s.keys("Enter")
	// The danger check asks first (a write outside the workspace); yes runs
	// it in the sandbox, which refuses.
	s.waitFor("writes outside the workspace")
	s.waitFor("Approve? (y/n)")
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("coder's sandbox refused it")
	if n := strings.Count(s.waitFor("not remembered"), "Approve? (y/n)"); n != 2 {
		t.Fatalf("%d y/n prompts, want 2", n)
	}
	if _, err := os.Stat(target); err == nil {
		t.Fatal("the sandbox let the write through")
	}
	s.typeText("y")
	s.keys("Enter")
	s.waitFor("planted it")
	if _, err := os.Stat(target); err != nil {
		t.Fatalf("the approved re-run did not run outside the sandbox: %v", err)
	}
	res := lastToolResults(srv.Requests()[1])
	if len(res) != 1 || !strings.Contains(res[0].Text, "re-run outside coder's sandbox") || !strings.Contains(res[0].Text, `"ok":true`) {
		t.Fatalf("the model was not told: %+v", res)
	}
}
