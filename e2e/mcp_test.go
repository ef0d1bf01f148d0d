//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

var (
	mcpServerOnce sync.Once
	mcpServerBin  string
	mcpServerErr  error
)

// mcpTestServer builds the Go MCP test server once.
func mcpTestServer(t *testing.T) string {
	mcpServerOnce.Do(func() {
		dir, err := os.MkdirTemp("", "coder-mcp-")
		if err != nil {
			mcpServerErr = err
			return
		}
		mcpServerBin = filepath.Join(dir, "testserver")
		out, err := exec.Command("go", "build", "-o", mcpServerBin, "../internal/mcp/testserver").CombinedOutput()
		if err != nil {
			mcpServerErr = err
			t.Logf("%s", out)
		}
	})
	if mcpServerErr != nil {
		t.Fatalf("building the MCP test server: %v", mcpServerErr)
	}
	return mcpServerBin
}

func TestMCPToolsThroughTheModel(t *testing.T) {
	dir := t.TempDir()
	cfg, _ := json.Marshal(map[string]any{"mcp": map[string]any{"servers": map[string]any{
		"test": map[string]any{"command": mcpTestServer(t)},
	}}})
	writeFile(t, dir, ".coder/config.json", string(cfg))
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "e", Name: "mcp__test__echo", Args: `{"text":"ping"}`},
			llmtest.ToolCall{ID: "w", Name: "mcp__test__write_note", Args: `{"path":"note.txt","text":"hello"}`},
		),
		llmtest.Calls(llmtest.ToolCall{ID: "c", Name: "mcp__test__crash", Args: `{}`}),
		llmtest.Text("The server crashed, but I carried on."),
	}})
	res := run{args: []string{"--trust", "-p", "use the test server", "--output-format", "stream-json"},
		env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	// The server's tools were offered with its schemas.
	if names := strings.Join(srv.Requests()[0].ToolNames(), ","); !strings.Contains(names, "mcp__test__echo") || !strings.Contains(names, "mcp__test__write_note") {
		t.Fatalf("offered tools: %s", names)
	}
	first := lastToolResults(srv.Requests()[1])
	if len(first) != 2 || !strings.Contains(first[0].Text, "ping") || first[1].IsError {
		t.Fatalf("echo and write_note results: %+v", first)
	}
	if b, err := os.ReadFile(filepath.Join(dir, "note.txt")); err != nil || string(b) != "hello" {
		t.Fatalf("write_note: %q %v", b, err)
	}
	// The mutating tools went through approval (approved: nobody to ask),
	// the read-only one did not.
	got := approvals(t, res.stdout)
	if strings.Join(got, ",") != "mcp__test__write_note:approved,mcp__test__crash:approved" {
		t.Fatalf("approvals %v", got)
	}
	crash := lastToolResults(srv.Requests()[2])
	if len(crash) != 1 || !strings.Contains(crash[0].Text, `"ok":false`) {
		t.Fatalf("a crashed server must give an ok:false result: %+v", crash)
	}
}

func TestMCPServerThatFailsToStartIsNotFatal(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, ".coder/config.json", `{"mcp":{"servers":{"broken":{"command":"/nonexistent/mcp-server"}}}}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("still working")}})
	res := run{args: []string{"--trust", "-p", "hi"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 || strings.TrimSpace(res.stdout) != "still working" || !strings.Contains(res.stderr, `mcp server "broken"`) {
		t.Fatalf("exit %d stdout %q stderr %q", res.code, res.stdout, res.stderr)
	}
}

// A widely used third-party server from npm, configured both ways. CI
// installs it (see .ci/run) and sets CODER_TEST_NPM_DIR.
func TestMCPThirdPartyServerFromNpm(t *testing.T) {
	npmDir := os.Getenv("CODER_TEST_NPM_DIR")
	if npmDir == "" {
		t.Skip("CODER_TEST_NPM_DIR is not set (CI installs @modelcontextprotocol/server-filesystem there)")
	}
	bin := filepath.Join(npmDir, "node_modules", ".bin", "mcp-server-filesystem")
	for _, layout := range []string{".coder/config.json", ".mcp.json"} {
		t.Run(layout, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "hello.txt", "hello from the workspace\n")
			server := map[string]any{"command": bin, "args": []string{dir}}
			var cfg []byte
			if layout == ".mcp.json" {
				cfg, _ = json.Marshal(map[string]any{"mcpServers": map[string]any{"fs": server}})
			} else {
				cfg, _ = json.Marshal(map[string]any{"mcp": map[string]any{"servers": map[string]any{"fs": server}}})
			}
			writeFile(t, dir, layout, string(cfg))
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call("mcp__fs__read_text_file", `{"path":`+quoteJSON(filepath.Join(dir, "hello.txt"))+`}`)),
				llmtest.Text("read it"),
			}})
			res := run{args: []string{"--trust", "-p", "read via mcp"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
			if res.code != 0 {
				t.Fatalf("exit %d: %s", res.code, res.stderr)
			}
			if names := strings.Join(srv.Requests()[0].ToolNames(), ","); !strings.Contains(names, "mcp__fs__list_directory") {
				t.Fatalf("offered tools: %s", names)
			}
			if r := lastToolResults(srv.Requests()[1]); len(r) != 1 || !strings.Contains(r[0].Text, "hello from the workspace") {
				t.Fatalf("read_text_file result: %+v", r)
			}
		})
	}
}
