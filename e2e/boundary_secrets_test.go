//go:build e2e

package e2e

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// TestWorkspaceSecretsMaskedForEveryCommand: the forms that beat the
// .env guard by parser — a name computed at run time, python, a symlink —
// read nothing, at any depth, even with every approval given (danger
// allowed: only the sandbox stands in the way). Positive controls: the
// committed example reads normally, and the read tool, which runs in
// coder and not in the sandbox, still reads .env once approved.
func TestWorkspaceSecretsMaskedForEveryCommand(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelFull)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	const secret = "SECRET-ENV-4b1d"
	writeFile(t, w.ws, ".env", "API_TOKEN="+secret+"\n")
	writeFile(t, w.ws, "config/.env.production", "DB_PASSWORD="+secret+"\n")
	writeFile(t, w.ws, "certs/server.key", secret+"\n")
	writeFile(t, w.ws, ".env.example", "API_TOKEN=changeme\n")
	calls := []llmtest.ToolCall{
		bashCall(`cat $(ls -a | grep env)`),
		bashCall(`ln -s .env e && cat e; cat config/.env.production certs/server.key; cp .env copy && cat copy`),
		bashCall(`cat .env.example`),
	}
	if _, err := exec.LookPath("python3"); err == nil {
		calls = append(calls, bashCall(`python3 -c "print(open('.env').read())"`))
	}
	_, srv := w.headless(t, llmtest.Calls(calls...), llmtest.Calls(llmtest.Call("read", `{"path":".env"}`)))
	rs := results(t, srv, 0)
	for i, r := range rs {
		if strings.Contains(r, secret) {
			t.Fatalf("command %d read a secret: %s", i, r)
		}
	}
	if !strings.Contains(rs[2], "API_TOKEN=changeme") {
		t.Fatalf("positive control: the example: %s", rs[2])
	}
	if r := results(t, srv, 1)[0]; !strings.Contains(r, secret) {
		t.Fatalf("positive control: the read tool, approved, did not read .env: %s", r)
	}
}
