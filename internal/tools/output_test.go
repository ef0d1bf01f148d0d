package tools

import (
	"context"
	"strings"
	"sync"
	"testing"
)

// A running command's output reaches the context's OutputFunc while it runs,
// stream by stream, beyond the model's cap; the model's result is unchanged.
func TestBashReportsOutputLive(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	var mu sync.Mutex
	got := map[string]*strings.Builder{"stdout": {}, "stderr": {}}
	var once sync.Once
	ctx := WithOutput(context.Background(), func(stream string, p []byte) {
		mu.Lock()
		got[stream].Write(p)
		mu.Unlock()
		once.Do(func() { writeFiles(t, ws.Root, map[string]string{"go": ""}) })
	})
	// The command waits until its first line was reported, so the report
	// cannot have been made after the command ended.
	res := callCtx(t, ctx, bashTool{ws: ws, outputLimit: 10, launch: Direct{Dir: ws.Root}},
		map[string]any{"command": "echo first line; for i in $(seq 500); do [ -e go ] && break; sleep 0.01; done; [ -e go ] || exit 9; echo oops >&2; seq 1 5"})
	if out := bashResult(t, res); out.ExitCode != 0 || !out.Truncated || out.Stdout != "first line\n"+truncatedLine {
		t.Fatalf("the model's result changed: %+v", out)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["stdout"].String() != "first line\n1\n2\n3\n4\n5\n" || got["stderr"].String() != "oops\n" {
		t.Fatalf("live output %q / %q", got["stdout"], got["stderr"])
	}
}
