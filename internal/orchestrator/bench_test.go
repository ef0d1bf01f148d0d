//go:build unix

package orchestrator

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/tools"
)

// BenchmarkTurn20Steps is one turn of 20 model calls, each asking to read a
// small file, then a final answer: the orchestrator's overhead per turn with
// a fake server that answers at once (its SSE encoding runs in this process
// and is included). Run: go test -run '^$' -bench Turn20Steps -benchmem ./internal/orchestrator/
func BenchmarkTurn20Steps(b *testing.B) {
	steps := make([]llmtest.Step, 0, 21)
	for i := range 20 {
		steps = append(steps, llmtest.Calls(llmtest.ToolCall{ID: fmt.Sprintf("c%d", i), Name: "read", Args: `{"path":"f.txt"}`}))
	}
	steps = append(steps, llmtest.Text("done"))
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: ws, CommandTimeout: time.Second, OutputLimit: 1 << 16})...)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		srv, err := llmtest.Start(llmtest.Scenario{Steps: steps})
		if err != nil {
			b.Fatal(err)
		}
		prov := llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL()}, Model: "fake"}), llm.RetryPolicy{})
		o, err := New(Options{Model: Model{Provider: prov, Name: "fake"}, Tools: reg, Workspace: ws.Root,
			Limits: Limits{MaxSteps: 30, ContextLimit: 100_000}})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		out, err := o.RunInput(context.Background(), "read f.txt twenty times")
		b.StopTimer()
		if err != nil || out.Steps != 21 {
			for _, r := range srv.Requests() {
				b.Logf("idx=%d attempt=%d status=%d fault=%s", r.Index, r.Attempt, r.Status, r.Fault)
			}
			b.Fatalf("turn: %+v %v", out, err)
		}
		srv.Close()
		b.StartTimer()
	}
	b.StopTimer()
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) == nil {
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/21, "ns/model-call")
}
