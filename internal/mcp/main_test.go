package mcp

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/tools"
)

// testServerBin is the test MCP server, built once for the package.
var testServerBin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "mcp-testserver")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testServerBin = filepath.Join(dir, "testserver")
	out, err := exec.Command("go", "build", "-o", testServerBin, "./testserver").CombinedOutput()
	if err != nil {
		fmt.Fprintf(os.Stderr, "building the test server: %v\n%s", err, out)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

func testServer() config.MCPServer { return config.MCPServer{Command: testServerBin} }

// newManager returns a manager over servers, closed when the test ends.
func newManager(t *testing.T, servers map[string]config.MCPServer, opts Options) *Manager {
	t.Helper()
	if opts.Cwd == "" {
		opts.Cwd = t.TempDir()
	}
	if opts.StartTimeout == 0 {
		opts.StartTimeout = 20 * time.Second // generous: -race on 2 cores
	}
	opts.Logf = t.Logf
	m := NewManager(servers, opts)
	t.Cleanup(m.Close)
	return m
}

// toolsByName lists m's tools, failing the test on any start error.
func toolsByName(t *testing.T, m *Manager) map[string]tools.Tool {
	t.Helper()
	ts, errs := m.Tools(context.Background())
	for _, err := range errs {
		t.Errorf("Tools: %v", err)
	}
	out := map[string]tools.Tool{}
	for _, tl := range ts {
		out[tl.Name()] = tl
	}
	return out
}

func run(t *testing.T, tl tools.Tool, args string) tools.Result {
	t.Helper()
	res, err := tools.Execute(context.Background(), decode(t, tl, args))
	if err != nil {
		t.Fatalf("%s(%s): infrastructure error: %v", tl.Name(), args, err)
	}
	return res
}

// decode decodes a call of tl as the orchestrator does.
func decode(t *testing.T, tl tools.Tool, args string) *tools.Call {
	t.Helper()
	reg, err := tools.NewRegistry(tl)
	if err != nil {
		t.Fatal(err)
	}
	return reg.Decode(chat.ToolCall{ID: "c1", Name: tl.Name(), Arguments: args})
}

// readOnly reports whether tl's calls are read-only (whatever the arguments).
func readOnly(t *testing.T, tl tools.Tool) bool {
	t.Helper()
	c := &tools.Call{Name: tl.Name(), Input: []byte("{}")}
	if err := tl.Prepare(c); err != nil {
		t.Fatal(err)
	}
	return c.ReadOnly
}
