package mcp

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/config"
)

func TestToolsListsAdapters(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{"test.srv": testServer()}, Options{})
	got := toolsByName(t, m)
	want := map[string]bool{ // name → read-only
		"mcp__test_srv__echo":       true,
		"mcp__test_srv__write_note": false,
		"mcp__test_srv__slow":       false,
		"mcp__test_srv__crash":      false,
	}
	if len(got) != len(want) {
		t.Fatalf("got %d tools %v, want %d", len(got), keys(got), len(want))
	}
	for name, ro := range want {
		tl, ok := got[name]
		if !ok {
			t.Fatalf("missing %s in %v", name, keys(got))
		}
		if readOnly(t, tl) != ro {
			t.Errorf("%s ReadOnly = %v, want %v", name, readOnly(t, tl), ro)
		}
	}
	var schema struct {
		Type       string                     `json:"type"`
		Properties map[string]json.RawMessage `json:"properties"`
		Required   []string                   `json:"required"`
	}
	if err := json.Unmarshal(got["mcp__test_srv__write_note"].Schema(), &schema); err != nil {
		t.Fatal(err)
	}
	if schema.Type != "object" || schema.Properties["path"] == nil || schema.Properties["text"] == nil {
		t.Errorf("write_note schema = %s", got["mcp__test_srv__write_note"].Schema())
	}
	if d := got["mcp__test_srv__echo"].Description(); !strings.Contains(d, "Returns its input.") {
		t.Errorf("echo description = %q", d)
	}
	st := m.Status()
	if len(st) != 1 || st[0].State != "running" || len(st[0].Tools) != 4 || st[0].Transport != "stdio" {
		t.Errorf("Status = %+v", st)
	}
}

func keys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

func TestCallsEchoAndWrite(t *testing.T) {
	t.Parallel()
	cwd := t.TempDir()
	m := newManager(t, map[string]config.MCPServer{"t": testServer()}, Options{Cwd: cwd})
	ts := toolsByName(t, m)

	res := run(t, ts["mcp__t__echo"], `{"text":"héllo"}`)
	if !res.OK || res.Content != "héllo" {
		t.Errorf("echo = %+v", res)
	}
	res = run(t, ts["mcp__t__echo"], `{"text":"fail"}`)
	if res.OK || !strings.Contains(res.Content, "echo refused: fail") {
		t.Errorf("echo isError = %+v", res)
	}
	res = run(t, ts["mcp__t__write_note"], `{"path":"note.txt","text":"from mcp"}`)
	if !res.OK {
		t.Fatalf("write_note = %+v", res)
	}
	if b, err := os.ReadFile(filepath.Join(cwd, "note.txt")); err != nil || string(b) != "from mcp" {
		t.Errorf("note.txt = %q, %v", b, err)
	}
	// A bad argument is refused by the server; the server stays up.
	res = run(t, ts["mcp__t__echo"], `{"text":5}`)
	if res.OK {
		t.Errorf("echo with a number = %+v", res)
	}
	if res := run(t, ts["mcp__t__echo"], `{"text":"still up"}`); !res.OK {
		t.Errorf("echo after a bad call = %+v", res)
	}
}

func TestConcurrentCalls(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{"t": testServer()}, Options{})
	// Tools from many goroutines at once share one start.
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if ts, errs := m.Tools(context.Background()); len(ts) != 4 || len(errs) != 0 {
				t.Errorf("Tools = %d tools, %v", len(ts), errs)
			}
		})
	}
	wg.Wait()
	echo := toolsByName(t, m)["mcp__t__echo"]
	for i := range 20 {
		wg.Go(func() {
			want := strings.Repeat("x", i)
			if res := run(t, echo, `{"text":"`+want+`"}`); !res.OK || res.Content != want {
				t.Errorf("echo %d = %+v", i, res)
			}
		})
	}
	wg.Wait()
}

func TestCallTimeoutStopsAndRestarts(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{"t": testServer()}, Options{CallTimeout: 300 * time.Millisecond})
	ts := toolsByName(t, m)
	start := time.Now()
	res := run(t, ts["mcp__t__slow"], `{"ms":20000}`)
	if res.OK || !strings.Contains(res.Content, `mcp server \"t\" failed during the call: no answer within 300ms`) {
		t.Errorf("slow = %+v", res)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("slow took %v", d)
	}
	// The one restart brings the server back.
	if res := run(t, ts["mcp__t__echo"], `{"text":"back"}`); !res.OK || res.Content != "back" {
		t.Errorf("echo after timeout = %+v", res)
	}
}

func TestCrashThenFailFast(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{"t": testServer()}, Options{})
	ts := toolsByName(t, m)
	crash, echo := ts["mcp__t__crash"], ts["mcp__t__echo"]

	res := run(t, crash, `{}`)
	if res.OK || !strings.Contains(res.Content, "failed during the call") || !strings.Contains(res.Content, "restarted on the next call") {
		t.Fatalf("first crash = %+v", res)
	}
	if res := run(t, echo, `{"text":"again"}`); !res.OK {
		t.Fatalf("echo after one crash (restart) = %+v", res)
	}
	res = run(t, crash, `{}`)
	if res.OK || !strings.Contains(res.Content, "will not be restarted") {
		t.Fatalf("second crash = %+v", res)
	}
	start := time.Now()
	res = run(t, echo, `{"text":"dead"}`)
	if res.OK || !strings.Contains(res.Content, `mcp server \"t\" is not running`) {
		t.Errorf("echo after second crash = %+v", res)
	}
	if d := time.Since(start); d > time.Second {
		t.Errorf("a dead server took %v to answer", d)
	}
	if st := m.Status(); st[0].State != "stopped" || st[0].Err == nil {
		t.Errorf("Status = %+v", st)
	}
}

func TestBrokenServersAreReported(t *testing.T) {
	t.Parallel()
	m := newManager(t, map[string]config.MCPServer{
		"good":    testServer(),
		"missing": {Command: "/nonexistent/mcp-server"},
		"noisy":   {Command: "sh", Args: []string{"-c", "echo cannot open database >&2; exit 1"}},
		"silent":  {Command: "sleep", Args: []string{"30"}},
		"empty":   {},
	}, Options{StartTimeout: 5 * time.Second}) // a loaded machine starts the good one slowly
	start := time.Now()
	ts, errs := m.Tools(context.Background())
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("Tools took %v: servers did not start in parallel", d)
	}
	if len(ts) != 4 {
		t.Errorf("got %d tools, want the good server's 4", len(ts))
	}
	want := []string{ // in server name order
		`mcp server "empty": failed to start: neither "command"`,
		`mcp server "missing": failed to start: fork/exec /nonexistent/mcp-server: no such file or directory`,
		`mcp server "noisy": failed to start:`,
		`mcp server "silent": failed to start: no answer within 5s`,
	}
	if len(errs) != len(want) {
		t.Fatalf("errors = %v", errs)
	}
	for i, w := range want {
		if !strings.HasPrefix(errs[i].Error(), w) {
			t.Errorf("error %d = %q, want prefix %q", i, errs[i], w)
		}
	}
	if !strings.Contains(errs[2].Error(), "cannot open database") {
		t.Errorf("noisy error lacks its stderr: %v", errs[2])
	}
	// Failures are remembered: no second wait.
	start = time.Now()
	if _, errs := m.Tools(context.Background()); len(errs) != 4 || time.Since(start) > time.Second {
		t.Errorf("second Tools: %d errors after %v", len(errs), time.Since(start))
	}
}
