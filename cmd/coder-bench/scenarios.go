package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// scenario is one headless run of the coder binary against a fresh fake
// server, in a fresh workspace and a fresh HOME.
type scenario struct {
	name  string
	steps []llmtest.Step
	// setup fills the workspace and returns the command line.
	setup func(ws string) (args []string, err error)
	// check rejects a run that did not do what the scenario scripts.
	check func(p proc, reqs []llmtest.Request) error
	// userConfig, when set, is written as the person's config.json.
	userConfig string
}

// runStats is what one run measured.
type runStats struct {
	wall, cpu  time.Duration
	rssBytes   int64
	firstBytes int      // body of the first model request
	totalBytes int      // bodies of all model requests
	tools      []string // tools offered in the first request
	requests   int
}

const (
	hiAnswer    = "Hello! How can I help?"
	tool3Answer = "notes.txt says the benchmark marker is there."
	notesMarker = "benchmark marker 5f3e"
	resumeN     = 5000
)

func scenarios() []scenario {
	return []scenario{
		{
			name:  "hi",
			steps: []llmtest.Step{llmtest.Text(hiAnswer)},
			setup: func(ws string) ([]string, error) {
				return []string{"-p", "hi"}, writeProject(ws)
			},
			check: func(p proc, reqs []llmtest.Request) error {
				return expect(p, reqs, 1, hiAnswer)
			},
		},
		{
			name: "tool3",
			steps: []llmtest.Step{
				llmtest.Calls(llmtest.Call(tools.Bash, `{"command":"cat notes.txt"}`)),
				llmtest.Calls(llmtest.Call(tools.Read, `{"path":"notes.txt"}`)),
				llmtest.Text(tool3Answer),
			},
			setup: func(ws string) ([]string, error) {
				return []string{"-p", "show me notes.txt"}, writeProject(ws)
			},
			check: func(p proc, reqs []llmtest.Request) error {
				if err := expect(p, reqs, 3, tool3Answer); err != nil {
					return err
				}
				results := reqs[2].ToolResults()
				if len(results) != 2 {
					return fmt.Errorf("%d tool results in the last request, want 2", len(results))
				}
				for _, r := range results {
					if !strings.Contains(r.Text, notesMarker) {
						return fmt.Errorf("a tool result lacks the file's content: %q", r.Text)
					}
				}
				return nil
			},
		},
		{
			name:  "resume",
			steps: []llmtest.Step{llmtest.Text(hiAnswer)},
			setup: func(ws string) ([]string, error) {
				if err := writeProject(ws); err != nil {
					return nil, err
				}
				id, err := prepareSession(ws, resumeN)
				return []string{"--resume", id, "-p", "hi"}, err
			},
			check: func(p proc, reqs []llmtest.Request) error {
				if err := expect(p, reqs, 1, hiAnswer); err != nil {
					return err
				}
				if n := len(reqs[0].Messages()); n < resumeN+1 {
					return fmt.Errorf("the request carries %d messages, want the %d resumed plus the prompt", n, resumeN)
				}
				return nil
			},
		},
	}
}

// expect checks the exit code, the answer and the number of model requests.
func expect(p proc, reqs []llmtest.Request, n int, answer string) error {
	if p.code != 0 {
		return fmt.Errorf("exit code %d\nstderr: %s", p.code, p.stderr)
	}
	if !strings.Contains(p.stdout, answer) {
		return fmt.Errorf("stdout %q lacks the answer %q\nstderr: %s", p.stdout, answer, p.stderr)
	}
	if len(reqs) != n {
		return fmt.Errorf("%d model requests, want %d", len(reqs), n)
	}
	for _, r := range reqs {
		if r.Fault != "" || r.Status != 200 {
			return fmt.Errorf("model request %d: status %d fault %q", r.Index, r.Status, r.Fault)
		}
	}
	return nil
}

// runScenario runs sc once. Workspace set-up and the server's start are not
// timed; the process is, from fork to exit.
func runScenario(bin string, sc scenario) (runStats, error) {
	tmp, err := os.MkdirTemp("", "coder-bench-"+sc.name+"-")
	if err != nil {
		return runStats{}, err
	}
	defer os.RemoveAll(tmp)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return runStats{}, err
		}
	}
	args, err := sc.setup(ws)
	if err == nil && sc.userConfig != "" {
		err = writeUserConfig(home, sc.userConfig)
	}
	if err != nil {
		return runStats{}, fmt.Errorf("%s: set-up: %w", sc.name, err)
	}
	srv, err := llmtest.Start(llmtest.Scenario{Steps: sc.steps})
	if err != nil {
		return runStats{}, err
	}
	defer srv.Close()
	p, err := runProc(bin, args, ws, coderEnv(home, srv.URL()+"/v1"))
	if err != nil {
		return runStats{}, err
	}
	reqs := srv.Requests()
	if err := sc.check(p, reqs); err != nil {
		return runStats{}, fmt.Errorf("%s: %w", sc.name, err)
	}
	st := runStats{wall: p.wall, cpu: p.cpu, rssBytes: p.maxRSSBytes, requests: len(reqs),
		firstBytes: len(reqs[0].Body), tools: reqs[0].ToolNames()}
	for _, r := range reqs {
		st.totalBytes += len(r.Body)
	}
	return st, nil
}

// probeCache is the runtime dir every run shares (XDG_RUNTIME_DIR), where
// coder remembers what its sandbox probe found; "" leaves the default.
var probeCache string

// coderEnv is the parent environment without anything that configures a
// provider, HOME and the config directory in an empty temp dir, and the
// provider pointed at the fake server.
func coderEnv(home, baseURL string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasSuffix(k, "_API_KEY") || strings.HasSuffix(k, "_BASE_URL") ||
			strings.HasPrefix(k, "CODER_") || strings.HasPrefix(k, "XDG_") ||
			k == "HOME" || k == "OLLAMA_HOST" {
			continue
		}
		env = append(env, kv)
	}
	if probeCache != "" {
		env = append(env, "XDG_RUNTIME_DIR="+probeCache)
	}
	return append(env,
		"HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"OLLAMA_HOST=http://127.0.0.1:1",
		"CODER_PROVIDER=openai", "CODER_BASE_URL="+baseURL, "CODER_MODEL=m", "CODER_API_KEY=x")
}

// writeUserConfig writes cfg as the config.json of the person whose HOME
// (and XDG_CONFIG_HOME, coderEnv) is home.
func writeUserConfig(home, cfg string) error {
	dir := filepath.Join(home, ".config", "coder")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o600)
}

// writeProject makes the workspace a small git repository, as a user's
// project would be (coder asks git for the branch and changed files).
func writeProject(ws string) error {
	files := map[string]string{
		"notes.txt": "Release checklist\n- " + notesMarker + "\n- tag the release\n",
		"go.mod":    "module example.com/demo\n\ngo 1.26\n",
		"main.go":   "package main\n\nfunc main() { println(\"demo\") }\n",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(content), 0o644); err != nil {
			return err
		}
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil
	}
	cmd := exec.Command("git", "init", "-q")
	cmd.Dir = ws
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("git init: %w: %s", err, out)
	}
	return nil
}

// prepareSession stores an n-message session for ws through the session
// store, shaped like the session package's BenchmarkLoad5000 (user prompt,
// assistant bash call, 1 KB tool output), ending on a final answer. The
// project config raises the context limit so that resuming it sends the
// whole history instead of compacting it first.
func prepareSession(ws string, n int) (string, error) {
	dir := filepath.Join(ws, ".coder")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	cfg := `{"runtime": {"context_token_limit": 1000000}}` + "\n"
	if err := os.WriteFile(filepath.Join(dir, "config.json"), []byte(cfg), 0o644); err != nil {
		return "", err
	}
	st, err := session.Open(session.StoreOptions{Dir: dir, Workspace: ws})
	if err != nil {
		return "", err
	}
	s := session.New(time.Now().Add(-time.Hour), "m", "build")
	s.Title = "a long session"
	out := strings.Repeat("line of tool output\n", 50)
	for i := range n - 1 {
		switch i % 3 {
		case 0:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("step %d: do the next thing", i)})
		case 1:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleAssistant, Content: "Running it.",
				ToolCalls: []chat.ToolCall{{ID: fmt.Sprintf("c%d", i), Name: tools.Bash, Arguments: `{"command":"go test ./..."}`}}})
		default:
			s.Messages = append(s.Messages, chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprintf("c%d", i-1), ToolName: tools.Bash, Content: out})
		}
	}
	if last := s.Messages[len(s.Messages)-1]; last.Role != chat.RoleUser {
		return "", errors.New("prepareSession: n must leave a user message last")
	}
	s.Messages = append(s.Messages, chat.Message{Role: chat.RoleAssistant, Content: "Done: all tests pass."})
	err = st.Checkpoint(context.Background(), s)
	if cerr := st.Close(); err == nil {
		err = cerr
	}
	return s.ID, err
}
