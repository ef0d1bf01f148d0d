package tools

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// newWS returns a workspace in a fresh temp dir.
func newWS(t *testing.T) *Workspace {
	t.Helper()
	ws, err := NewWorkspace(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

// writeFiles creates files (path → content) below root; a path ending in /
// is an empty directory.
func writeFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if p[len(p)-1] == '/' {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// trackers holds one ReadTracker per test workspace, so that the tools
// builtin returns for one workspace share it like a session's do.
var trackers sync.Map

func builtin(t *testing.T, ws *Workspace, name string) Tool {
	t.Helper()
	tr, _ := trackers.LoadOrStore(ws, NewReadTracker())
	env := Env{Workspace: ws, CommandTimeout: 30 * time.Second, OutputLimit: 64 << 10, Tracker: tr.(*ReadTracker)}
	for _, tool := range Builtins(env) {
		if tool.Name() == name {
			return tool
		}
	}
	t.Fatalf("no built-in tool %q", name)
	return nil
}

// call runs tool through Execute with args marshalled to JSON.
func call(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	return callCtx(t, context.Background(), tool, args)
}

func callCtx(t *testing.T, ctx context.Context, tool Tool, args any) Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := execRaw(ctx, tool, raw)
	if err != nil {
		t.Fatalf("%s(%s): unexpected error: %v", tool.Name(), raw, err)
	}
	return res
}

// decodeCall decodes raw arguments for tool as the orchestrator does.
func decodeCall(t testing.TB, tool Tool, raw string) *Call {
	t.Helper()
	r, err := NewRegistry(tool)
	if err != nil {
		t.Fatal(err)
	}
	return r.Decode(chat.ToolCall{ID: "call_1", Name: tool.Name(), Arguments: raw})
}

// execRaw decodes and executes one call, as the orchestrator does.
func execRaw(ctx context.Context, tool Tool, raw string) (Result, error) {
	r, err := NewRegistry(tool)
	if err != nil {
		return Result{}, err
	}
	return Execute(ctx, r.Decode(chat.ToolCall{ID: "call_1", Name: tool.Name(), Arguments: raw}))
}

// callApproved runs a call whose paths outside the workspace a person approved.
func callApproved(t *testing.T, tool Tool, args any) Result {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := decodeCall(t, tool, string(raw))
	c.OutsideApproved = true
	res, err := Execute(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// mustOK fails the test unless res is OK, and returns its content.
func mustOK(t *testing.T, res Result) string {
	t.Helper()
	if !res.OK {
		t.Fatalf("expected ok, got failure: %s", res.Content)
	}
	return res.Content
}

// failure checks res is the standard failed result and returns its error text.
func failure(t *testing.T, res Result) string {
	t.Helper()
	if res.OK {
		t.Fatalf("expected failure, got ok: %s", res.Content)
	}
	var f struct {
		OK    *bool  `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal([]byte(res.Content), &f); err != nil || f.OK == nil || *f.OK || f.Error == "" {
		t.Fatalf("failure content is not {\"ok\":false,\"error\":...}: %s", res.Content)
	}
	return f.Error
}

// readPaths reads each path with the read tool, as a model does before
// editing.
func readPaths(t *testing.T, ws *Workspace, paths ...string) {
	t.Helper()
	read := builtin(t, ws, "read")
	for _, p := range paths {
		mustOK(t, call(t, read, map[string]any{"path": p}))
	}
}
