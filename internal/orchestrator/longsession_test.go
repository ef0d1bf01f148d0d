//go:build unix

package orchestrator

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
	"github.com/coder-agent/coder/internal/undo"
)

// timedProvider records when each model call started and ended, so the
// time spent outside the provider — the orchestrator's own work, tools
// included — can be told from the time the provider and the fake server
// spend sending an ever longer history.
type timedProvider struct {
	llm.Provider
	mu    sync.Mutex
	spans [][2]time.Time
}

func (p *timedProvider) Stream(ctx context.Context, req llm.Request, emit llm.Emit) error {
	start := time.Now()
	err := p.Provider.Stream(ctx, req, emit)
	p.mu.Lock()
	p.spans = append(p.spans, [2]time.Time{start, time.Now()})
	p.mu.Unlock()
	return err
}

// between is the time from the end of model call i to the start of call i+1.
func (p *timedProvider) between(i int) time.Duration {
	return p.spans[i+1][0].Sub(p.spans[i][1])
}

// TestMain lets the test binary serve the long session's fake model in a
// process of its own (LONG_SESSION_SERVER=steps), so neither its CPU nor
// its memory is counted as the orchestrator's.
func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv("LONG_SESSION_SERVER")); err == nil {
		serveLongSession(n)
		return
	}
	os.Exit(m.Run())
}

func serveLongSession(steps int) {
	srv, err := llmtest.Start(longSessionScenario(steps))
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(srv.OpenAIBaseURL())
	_, _ = io.Copy(io.Discard, os.Stdin) // until the parent closes stdin
	srv.Close()
}

// BenchmarkLongSession runs one session of 2,000 model calls (tool calls
// with results of realistic size; no compaction) against the fake server
// in another process, with the real tools, SQLite store and undo recorder,
// and reports the orchestrator's time per step around step 10 and at step
// 2,000, their ratio, and this process's peak RSS.
//
//	go test -run '^$' -bench LongSession -benchtime 1x ./internal/orchestrator/
func BenchmarkLongSession(b *testing.B) {
	steps := 2000
	if n, err := strconv.Atoi(os.Getenv("LONG_SESSION_STEPS")); err == nil && n > 40 {
		steps = n
	}
	for b.Loop() {
		p := runLongSession(b, steps)
		early, late := median(p, 5, 15), median(p, steps-11, steps-1)
		var ru syscall.Rusage
		_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		b.ReportMetric(float64(early.Microseconds()), "µs/step@10")
		b.ReportMetric(float64(late.Microseconds()), fmt.Sprintf("µs/step@%d", steps))
		b.ReportMetric(float64(late)/float64(early), "ratio")
		b.ReportMetric(float64(ru.Maxrss)/1024, "peak-RSS-MB")
	}
}

func median(p *timedProvider, from, to int) time.Duration {
	var ds []time.Duration
	for i := from; i < to; i++ {
		ds = append(ds, p.between(i))
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// longSessionCalls cycles through the calls of a working session: reads of
// a 3 KB file, searches, listings and a shell command.
var longSessionCalls = []llmtest.ToolCall{
	{Name: tools.Read, Args: `{"path":"server.go"}`},
	{Name: tools.Grep, Args: `{"pattern":"func ","path":"server.go"}`},
	{Name: tools.Bash, Args: `{"command":"echo checking; ls"}`},
	{Name: tools.List, Args: `{}`},
}

func longSessionScenario(steps int) llmtest.Scenario {
	sc := llmtest.Scenario{Lean: true}
	for i := range steps - 1 {
		c := longSessionCalls[i%len(longSessionCalls)]
		c.ID = fmt.Sprintf("c%d", i)
		sc.Steps = append(sc.Steps, llmtest.Step{Text: "Looking at the next part of the code.", ToolCalls: []llmtest.ToolCall{c}})
	}
	sc.Steps = append(sc.Steps, llmtest.Text("done"))
	return sc
}

// startServer starts the fake model in a child process and returns its base URL.
func startServer(b *testing.B, steps int) string {
	b.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), fmt.Sprintf("LONG_SESSION_SERVER=%d", steps))
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); _ = cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		b.Fatalf("the fake server did not start: %v", err)
	}
	return strings.TrimSpace(line)
}

func runLongSession(b *testing.B, steps int) *timedProvider {
	b.Helper()
	url := startServer(b, steps)
	dir := b.TempDir()
	var src strings.Builder
	for i := 0; src.Len() < 3000; i++ {
		fmt.Fprintf(&src, "// handle%d serves one kind of request.\nfunc handle%d(w http.ResponseWriter, r *http.Request) {\n\tw.WriteHeader(%d)\n}\n\n", i, i, 200+i)
	}
	if err := os.WriteFile(filepath.Join(dir, "server.go"), []byte(src.String()), 0o644); err != nil {
		b.Fatal(err)
	}
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		b.Fatal(err)
	}
	store, err := session.Open(session.StoreOptions{Dir: filepath.Join(dir, ".coder"), Workspace: ws.Root})
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	rec := undo.NewRecorder(store, ws.Root)
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: ws, CommandTimeout: 10 * time.Second,
		OutputLimit: 64 << 10, BeforeChange: rec.Capture})...)
	if err != nil {
		b.Fatal(err)
	}
	prov := &timedProvider{Provider: llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: url}, Model: "fake"}), llm.RetryPolicy{})}
	o, err := New(Options{Model: Model{Provider: prov, Name: "fake"}, Tools: reg, Workspace: ws.Root,
		Limits:      Limits{MaxSteps: steps + 1, ContextLimit: 1 << 30},
		Persistence: Persistence{Store: store, Undo: rec}})
	if err != nil {
		b.Fatal(err)
	}
	out, err := o.RunInput(context.Background(), "walk through the server code")
	if err != nil || out.Steps != steps {
		b.Fatalf("turn: %+v %v", out, err)
	}
	return prov
}
