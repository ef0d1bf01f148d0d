package commands

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/customcmd"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/hooks"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
	"github.com/coder-agent/coder/internal/undo"
)

// fixed is the test clock: 2026-11-22 02:30 UTC, 10:30 in Shanghai.
var fixed = time.Date(2026, 11, 22, 2, 30, 0, 0, time.UTC)

type env struct {
	orch  *orchestrator.Orchestrator
	cmds  *Dispatcher
	store *session.Store
	srv   *llmtest.Server
	dir   string
}

func newEnv(t *testing.T, steps ...llmtest.Step) *env {
	t.Helper()
	dir := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: steps, Models: []string{"m1", "m2"}})
	store, err := session.Open(session.StoreOptions{Dir: filepath.Join(dir, ".coder"), Workspace: dir, Now: func() time.Time { return fixed }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	ws, err := tools.NewWorkspace(dir)
	if err != nil {
		t.Fatal(err)
	}
	tasks := tools.NewTasks()
	t.Cleanup(tasks.StopAll)
	rec := undo.NewRecorder(store, ws.Root)
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: ws, Tasks: tasks, BeforeChange: rec.Capture})...)
	if err != nil {
		t.Fatal(err)
	}
	o, err := orchestrator.New(orchestrator.Options{
		Model:     orchestrator.Model{Provider: openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL()}, Model: "m1"}), Name: "m1"},
		Tools:     reg,
		Workspace: ws.Root, Limits: orchestrator.Limits{MaxSteps: 5, ContextLimit: 100_000},
		Persistence: orchestrator.Persistence{Store: store, Undo: rec},
		Now:         func() time.Time { return fixed },
	})
	if err != nil {
		t.Fatal(err)
	}
	agents, err := agent.NewCatalog(nil)
	if err != nil {
		t.Fatal(err)
	}
	cmds := New(o, Deps{Agents: agents, ProjectConfig: config.NewProjectWriter(filepath.Join(dir, ".coder", "config.json"), filepath.Join(dir, "user")), Endpoint: srv.OpenAIBaseURL(), Sessions: store,
		Location: config.Location(config.UI{Timezone: "Asia/Shanghai"}), Tasks: tasks, Undo: store})
	return &env{orch: o, cmds: cmds, store: store, srv: srv, dir: dir}
}

func (e *env) do(t *testing.T, input string) (string, error) {
	t.Helper()
	out, err := e.cmds.RunInput(context.Background(), input)
	return out.Result, err
}

func TestSessionsNewAndResume(t *testing.T) {
	e := newEnv(t, llmtest.Text("answer one"))
	if _, err := e.do(t, "first question"); err != nil {
		t.Fatal(err)
	}
	first := e.orch.Session().ID

	list, err := e.do(t, "/sessions")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(list, first) || !strings.Contains(list, "2026-11-22 10:30") ||
		!strings.Contains(list, "UTC+08:00") || !strings.Contains(list, "first question") {
		t.Fatalf("/sessions in Shanghai time:\n%s", list)
	}

	msg, err := e.do(t, "/new")
	if err != nil || !strings.HasPrefix(msg, "new session ") || e.orch.Session().ID == first || len(e.orch.Session().Messages) != 0 {
		t.Fatalf("/new: %q %v", msg, err)
	}

	bare, err := e.do(t, "/resume")
	if err != nil || !strings.Contains(bare, first) || !strings.Contains(bare, "/resume <session-id>") {
		t.Fatalf("/resume without id: %q %v", bare, err)
	}

	msg, err = e.do(t, "/resume "+first)
	if err != nil || e.orch.Session().ID != first || len(e.orch.Session().Messages) != 2 {
		t.Fatalf("/resume: %q %v", msg, err)
	}
	if e.orch.Session().Messages[1].Content != "answer one" {
		t.Fatalf("resumed history %+v", e.orch.Session().Messages)
	}

	if _, err := e.do(t, "/resume 1"); err == nil || !strings.Contains(err.Error(), `no session "1"`) {
		t.Fatalf("/resume by index must fail readably, got %v", err)
	}
}

func TestResumeRepairsUnansweredToolCalls(t *testing.T) {
	e := newEnv(t)
	s := session.New(fixed, "m1", "build")
	s.Title = "crashed"
	s.Messages = []chat.Message{
		{Role: chat.RoleUser, Content: "do two things"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "a", Name: "bash", Arguments: `{"command":"echo 1"}`},
			{ID: "b", Name: "bash", Arguments: `{"command":"echo 2"}`}}},
		{Role: chat.RoleTool, ToolCallID: "a", Content: `{"ok":true}`},
	}
	if err := e.store.Checkpoint(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	if _, err := e.do(t, "/resume "+s.ID); err != nil {
		t.Fatal(err)
	}
	msgs := e.orch.Session().Messages
	if len(msgs) != 4 || msgs[3].ToolCallID != "b" || !msgs[3].IsError || !strings.Contains(msgs[3].Content, "interrupted") {
		t.Fatalf("repaired history %+v", msgs)
	}
	// The repair is on disk before anything else happens.
	loaded, err := e.store.Load(context.Background(), s.ID)
	if err != nil || len(loaded.Messages) != 4 {
		t.Fatalf("repair not persisted: %v %d", err, len(loaded.Messages))
	}
}

func TestModelSwitchPersists(t *testing.T) {
	e := newEnv(t)
	if out, err := e.do(t, "/model"); err != nil || out != "models the provider serves and the catalog knows (* = current):\n  * m1\n    m2\nswitch with /model <name>" {
		t.Fatalf("/model: %q %v", out, err)
	}
	if got := e.cmds.Arguments(context.Background(), "model"); strings.Join(got, ",") != "m1,m2" {
		t.Fatalf("model completions %q", got)
	}
	if _, err := e.do(t, "/model m2"); err != nil {
		t.Fatal(err)
	}
	if e.orch.Status().Model != "m2" {
		t.Fatalf("model now %s", e.orch.Status().Model)
	}
	b, err := os.ReadFile(filepath.Join(e.dir, ".coder", "config.json"))
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		Provider struct {
			Model       string
			SavedModels map[string]string `json:"saved_models"`
		} `json:"provider"`
	}
	if json.Unmarshal(b, &cfg) != nil || cfg.Provider.Model != "m2" || cfg.Provider.SavedModels[e.srv.OpenAIBaseURL()] != "m2" {
		t.Fatalf("config.json: %s", b)
	}
}

func TestModeSwitchChangesTools(t *testing.T) {
	e := newEnv(t)
	if _, err := e.do(t, "/plan"); err != nil {
		t.Fatal(err)
	}
	out, err := e.do(t, "/tools")
	if err != nil || strings.Contains(out, "\n  write ") || strings.Contains(out, "\n  edit ") || !strings.Contains(out, "plan mode") {
		t.Fatalf("/tools in plan mode: %q %v", out, err)
	}
	if _, err := e.do(t, "/mode sideways"); err == nil {
		t.Fatal("unknown mode accepted")
	}
}

func TestUnknownSlashCommand(t *testing.T) {
	e := newEnv(t)
	out, err := e.cmds.RunInput(context.Background(), "/frobnicate now")
	if err == nil || out.State != event.StateFailed || !strings.Contains(err.Error(), "unknown command /frobnicate") {
		t.Fatalf("got %+v %v", out, err)
	}
	if len(e.srv.Requests()) != 0 {
		t.Fatal("an unknown command reached the model")
	}
}

// A custom command expands into a request for the model: a normal turn.
func TestCustomCommandRunsATurn(t *testing.T) {
	e := newEnv(t, llmtest.Text("reviewed"))
	e.cmds.deps.Custom = []customcmd.Command{{Name: "review", Body: "Review $ARGUMENTS carefully."}}
	out, err := e.cmds.RunInput(context.Background(), "/review main.go")
	if err != nil || out.Result != "reviewed" {
		t.Fatalf("got %+v %v", out, err)
	}
	msgs := e.srv.Requests()[0].Messages()
	if len(msgs) != 1 || msgs[0].Text != "Review main.go carefully." {
		t.Fatalf("the model got %+v", msgs)
	}
}

func TestTasksListsAndStops(t *testing.T) {
	e := newEnv(t,
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo hi; sleep 30","background":true}`)),
		llmtest.Text("started"))
	if out, err := e.do(t, "/tasks"); err != nil || out != "no background tasks" {
		t.Fatalf("/tasks before: %q %v", out, err)
	}
	if _, err := e.do(t, "start a server"); err != nil {
		t.Fatal(err)
	}
	out, err := e.do(t, "/tasks")
	if err != nil || !strings.Contains(out, "task-1") || !strings.Contains(out, "running") || !strings.Contains(out, "echo hi; sleep 30") {
		t.Fatalf("/tasks: %q %v", out, err)
	}
	if out, err := e.do(t, "/tasks stop task-1"); err != nil || out != "stopped task-1" {
		t.Fatalf("/tasks stop: %q %v", out, err)
	}
	out, _ = e.do(t, "/tasks")
	if !strings.Contains(out, "exited 143") || !strings.HasPrefix(out, "id       status        ran  command\n") {
		t.Fatalf("/tasks after stop: %q", out)
	}
	if _, err := e.do(t, "/tasks stop task-9"); err == nil || !strings.Contains(err.Error(), "no task") {
		t.Fatalf("stopping an unknown task: %v", err)
	}
}

func TestInfosListBuiltinAndCustomCommands(t *testing.T) {
	e := newEnv(t)
	e.cmds.deps.Custom = []customcmd.Command{
		{Name: "review", Description: "review a change"},
		{Name: "diff", Description: "my own diff"}, // shadows the built-in
	}
	byName := map[string]Info{}
	var names []string
	for _, in := range e.cmds.Infos() {
		byName[in.Name] = in
		names = append(names, in.Name)
	}
	if !sort.StringsAreSorted(names) || len(names) != len(byName) {
		t.Fatalf("names not sorted or repeated: %v", names)
	}
	if r := byName["review"]; !r.Custom || r.Summary != "review a change" {
		t.Fatalf("custom command: %+v", r)
	}
	if d := byName["diff"]; !d.Custom || d.Summary != "my own diff" {
		t.Fatalf("a custom command shadows the built-in: %+v", d)
	}
	if u := byName["undo"]; u.Custom || u.Summary == "" {
		t.Fatalf("built-in command: %+v", u)
	}
}

func TestHooksListsActiveHooksAndTheirFiles(t *testing.T) {
	e := newEnv(t)
	if out, err := e.do(t, "/hooks"); err != nil || !strings.HasPrefix(out, "no hooks are active") {
		t.Fatalf("/hooks without hooks: %q %v", out, err)
	}
	e.cmds.deps.Hooks = []hooks.Group{
		{Event: hooks.Stop, Commands: []hooks.Command{{Command: "stop.sh", Timeout: time.Minute},
			{Command: "boxed.sh", Timeout: time.Second, Sandbox: true}}, Source: "/u/config.json"},
		{Event: hooks.PreToolUse, Matcher: "Bash", Commands: []hooks.Command{{Command: "check.sh", Timeout: 5 * time.Second}},
			Source: "/p/.claude/settings.json"},
	}
	out, err := e.do(t, "/hooks")
	want := "PreToolUse\n  [Bash] check.sh  (timeout 5s; /p/.claude/settings.json)\nStop\n  [*] stop.sh  (timeout 1m0s; /u/config.json)\n" +
		"  [*] boxed.sh  (timeout 1s; in the sandbox; /u/config.json)"
	if err != nil || out != want {
		t.Fatalf("/hooks:\n%s\nwant:\n%s", out, want)
	}
}
