package acp

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/commands"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// coreFactory builds real runtimes (orchestrator, tools, policy, store,
// dispatcher) over the fake model server, as the program does.
type coreFactory struct {
	url   string
	panic bool // Open panics (the guard test)
}

func (f *coreFactory) Open(_ context.Context, req OpenRequest) (*Runtime, error) {
	if f.panic {
		panic("factory exploded")
	}
	store, err := session.Open(session.StoreOptions{Dir: filepath.Join(req.Cwd, ".coder"), Workspace: req.Cwd})
	if err != nil {
		return nil, err
	}
	ws, err := tools.NewWorkspace(req.Cwd)
	if err != nil {
		return nil, err
	}
	reg, err := tools.NewRegistry(tools.Builtins(tools.Env{Workspace: ws, Files: req.Front.Files, CommandTimeout: time.Minute})...)
	if err != nil {
		return nil, err
	}
	policy, err := permission.NewPolicy(permission.PolicyOptions{Permission: config.Defaults().Permission})
	if err != nil {
		return nil, err
	}
	o, err := orchestrator.New(orchestrator.Options{
		Model: orchestrator.Model{Provider: openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: f.url}, Model: "m"}), Name: "m"},
		Front: orchestrator.Front{Sink: req.Front.Sink, Approver: req.Front.Approver, Questioner: req.Front.Questioner},
		Tools: reg, Policy: policy, Workspace: ws.Root,
		Limits:      orchestrator.Limits{MaxSteps: 10, ContextLimit: 100_000},
		Persistence: orchestrator.Persistence{Store: store},
	})
	if err != nil {
		return nil, err
	}
	catalog, _ := agent.NewCatalog(nil)
	input := commands.New(o, commands.Deps{Sink: req.Front.Sink, Agents: catalog, Sessions: store})
	return &Runtime{Core: o, Input: input, Sessions: store, Agents: []agent.Agent{agent.BuildAgent(), agent.PlanAgent()},
		Workspace: ws.Root, Close: func() { store.Close() }}, nil
}

func (f *coreFactory) List(ctx context.Context, cwd string) (string, []session.Summary, error) {
	return cwd, nil, nil
}

// editor is the client side: it records updates and hands permission
// requests to the test.
type editor struct {
	mu      sync.Mutex
	updates []sdk.SessionNotification
	asks    chan ask
	// quit closes the editor's stream and waits for coder to end.
	quit func()
}

type ask struct {
	req   sdk.RequestPermissionRequest
	reply chan string // an option id
}

func (e *editor) SessionUpdate(_ context.Context, n sdk.SessionNotification) error {
	e.mu.Lock()
	e.updates = append(e.updates, n)
	e.mu.Unlock()
	return nil
}

func (e *editor) RequestPermission(ctx context.Context, p sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	a := ask{req: p, reply: make(chan string, 1)}
	e.asks <- a
	select {
	case id := <-a.reply:
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Selected: &sdk.RequestPermissionOutcomeSelected{OptionId: sdk.PermissionOptionId(id)}}}, nil
	case <-ctx.Done():
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{}}}, nil
	}
}

func (e *editor) ReadTextFile(context.Context, sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	return sdk.ReadTextFileResponse{}, errors.New("not offered")
}
func (e *editor) WriteTextFile(context.Context, sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	return sdk.WriteTextFileResponse{}, errors.New("not offered")
}
func (e *editor) CreateTerminal(context.Context, sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	return sdk.CreateTerminalResponse{}, errors.New("not offered")
}
func (e *editor) KillTerminal(context.Context, sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	return sdk.KillTerminalResponse{}, errors.New("not offered")
}
func (e *editor) TerminalOutput(context.Context, sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	return sdk.TerminalOutputResponse{}, errors.New("not offered")
}
func (e *editor) ReleaseTerminal(context.Context, sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	return sdk.ReleaseTerminalResponse{}, errors.New("not offered")
}
func (e *editor) WaitForTerminalExit(context.Context, sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	return sdk.WaitForTerminalExitResponse{}, errors.New("not offered")
}

// seen returns the updates of one session whose kind is kind.
func (e *editor) seen(sid sdk.SessionId, kind func(sdk.SessionUpdate) bool) []sdk.SessionUpdate {
	e.mu.Lock()
	defer e.mu.Unlock()
	var out []sdk.SessionUpdate
	for _, n := range e.updates {
		if n.SessionId == sid && kind(n.Update) {
			out = append(out, n.Update)
		}
	}
	return out
}

func isText(u sdk.SessionUpdate) bool { return u.AgentMessageChunk != nil }
func isMode(u sdk.SessionUpdate) bool { return u.CurrentModeUpdate != nil }

// waitUntil polls cond until it holds or the deadline passes.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// serveInProcess runs Serve on pipes with the Go SDK's client on the other
// end; the test ends by closing the client's stream (the editor quits).
func serveInProcess(t *testing.T, f Factory) (*sdk.ClientSideConnection, *editor, string) {
	t.Helper()
	dir := t.TempDir()
	conn, ed := serveIn(t, dir, f, false)
	return conn, ed, dir
}

// serveIn is serveInProcess in dir, with --continue when cont is set.
func serveIn(t *testing.T, dir string, f Factory, cont bool) (*sdk.ClientSideConnection, *editor) {
	t.Helper()
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = Serve(context.Background(), Options{In: agentIn, Out: agentOut, Factory: f, Version: "test", Cwd: dir,
			Continue: cont, Log: slog.New(slog.NewTextHandler(io.Discard, nil))})
		agentOut.Close()
	}()
	ed := &editor{asks: make(chan ask, 4)}
	ed.quit = func() {
		clientOut.Close()
		select {
		case <-done:
		case <-time.After(30 * time.Second):
			t.Error("Serve did not return after the editor closed its stream")
		}
	}
	conn := sdk.NewClientSideConnection(ed, clientOut, clientIn)
	conn.SetLogger(slog.New(slog.DiscardHandler))
	t.Cleanup(ed.quit)
	ctx := context.Background()
	if _, err := conn.Initialize(ctx, sdk.InitializeRequest{ProtocolVersion: sdk.ProtocolVersionNumber}); err != nil {
		t.Fatal(err)
	}
	return conn, ed
}

func newSessionIn(t *testing.T, conn *sdk.ClientSideConnection, dir string) sdk.SessionId {
	t.Helper()
	resp, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatal(err)
	}
	return resp.SessionId
}

func promptText(text string) []sdk.ContentBlock { return []sdk.ContentBlock{sdk.TextBlock(text)} }

// session/cancel during a stalled model stream ends the turn as cancelled;
// the session goes on, and the next prompt gets the whole answer.
func TestServeCancelDuringStream(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		{Text: "a long answer that stalls", Faults: []llmtest.Fault{{Kind: llmtest.FaultStall, AfterChunks: 4}}},
	}})
	conn, ed, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	sid := newSessionIn(t, conn, dir)
	ctx := context.Background()
	result := make(chan sdk.StopReason, 1)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: promptText("talk")})
		if err != nil {
			t.Error(err)
		}
		result <- resp.StopReason
	}()
	waitUntil(t, "the first chunk", func() bool { return len(ed.seen(sid, isText)) > 0 })
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case stop := <-result:
		if stop != sdk.StopReasonCancelled {
			t.Fatalf("stop reason %q", stop)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled prompt did not return")
	}
	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: promptText("again")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("after the cancel: %+v %v", resp, err)
	}
}

// Cancel while a permission request is pending: the request is withdrawn,
// the command never runs, the turn ends cancelled. A mode chosen meanwhile
// applies when the turn is over.
func TestServeCancelWhileAskingAndModeSwitchWaits(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo x > made.txt"}`)),
	}})
	conn, ed, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	sid := newSessionIn(t, conn, dir)
	ctx := context.Background()
	result := make(chan sdk.StopReason, 1)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: promptText("make it")})
		if err != nil {
			t.Error(err)
		}
		result <- resp.StopReason
	}()
	var a ask
	select {
	case a = <-ed.asks:
	case <-time.After(20 * time.Second):
		t.Fatal("no permission request")
	}
	if a.req.ToolCall.Kind == nil || *a.req.ToolCall.Kind != sdk.ToolKindExecute {
		t.Fatalf("permission for %+v", a.req.ToolCall)
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	if m := ed.seen(sid, isMode); len(m) != 0 {
		t.Fatalf("the mode switched during the turn: %+v", m)
	}
	if err := conn.Cancel(ctx, sdk.CancelNotification{SessionId: sid}); err != nil {
		t.Fatal(err)
	}
	select {
	case stop := <-result:
		if stop != sdk.StopReasonCancelled {
			t.Fatalf("stop reason %q", stop)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not return")
	}
	if _, err := os.Stat(filepath.Join(dir, "made.txt")); err == nil {
		t.Fatal("the command ran after the cancel")
	}
	waitUntil(t, "the mode switch after the turn", func() bool { return len(ed.seen(sid, isMode)) == 1 })
	if got := ed.seen(sid, isMode)[0].CurrentModeUpdate.CurrentModeId; got != "plan" {
		t.Fatalf("mode %q", got)
	}
}

// Two editor threads prompt at once; each gets its own answer and updates.
func TestServeConcurrentSessions(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("same answer")}, Repeat: true})
	conn, ed, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	ids := []sdk.SessionId{newSessionIn(t, conn, dir), newSessionIn(t, conn, dir)}
	if ids[0] == ids[1] {
		t.Fatal("two sessions share an id")
	}
	var wg sync.WaitGroup
	for _, sid := range ids {
		wg.Go(func() {
			resp, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sid, Prompt: promptText("hi")})
			if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
				t.Errorf("%s: %+v %v", sid, resp, err)
			}
		})
	}
	wg.Wait()
	for _, sid := range ids {
		var text strings.Builder
		for _, u := range ed.seen(sid, isText) {
			text.WriteString(u.AgentMessageChunk.Content.Text.Text)
		}
		if text.String() != "same answer" {
			t.Fatalf("%s saw %q", sid, text.String())
		}
	}
}

// No panic reaches the editor: a handler that panics answers with an
// error and the connection serves the next request.
func TestServeSurvivesAPanic(t *testing.T) {
	f := &coreFactory{panic: true}
	conn, _, dir := serveInProcess(t, f)
	_, err := conn.NewSession(context.Background(), sdk.NewSessionRequest{Cwd: dir, McpServers: []sdk.McpServer{}})
	var re *sdk.RequestError
	if !errors.As(err, &re) || re.Code != codeInternalError || !strings.Contains(re.Message, "factory exploded") {
		t.Fatalf("error %v", err)
	}
	if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: "nope", Prompt: promptText("x")}); !errors.As(err, &re) || re.Code != codeNotFound {
		t.Fatalf("unknown session: %v", err)
	}
	if _, err := conn.Initialize(context.Background(), sdk.InitializeRequest{ProtocolVersion: 1}); err != nil {
		t.Fatalf("the connection did not go on: %v", err)
	}
}

// Plan-mode questions go to the editor one permission request each, the
// options as buttons: a chosen option is the answer, Dismiss tells the
// model the person declined.
func TestServeQuestions(t *testing.T) {
	ask2 := `{"questions":[{"question":"Which colour?","options":[{"label":"red"},{"label":"blue"}]},` +
		`{"question":"Size?","options":[{"label":"S"},{"label":"L"}]}]}`
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("question", ask2)),
		llmtest.Calls(llmtest.Call("question", `{"questions":[{"question":"Sure?","options":[{"label":"yes"}]}]}`)),
		llmtest.Text("ok"),
	}})
	conn, ed, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	sid := newSessionIn(t, conn, dir)
	ctx := context.Background()
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	go func() {
		for _, pick := range []string{"q0-1", "q1-0", optDismiss} {
			select {
			case a := <-ed.asks:
				a.reply <- pick
			case <-time.After(20 * time.Second):
				t.Error("no question asked")
				return
			}
		}
	}()
	resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: promptText("ask me")})
	if err != nil || resp.StopReason != sdk.StopReasonEndTurn {
		t.Fatalf("%+v %v", resp, err)
	}
	reqs := srv.Requests()
	if got := lastToolResult(reqs[1]); !strings.Contains(got, `"answer":"blue"`) || !strings.Contains(got, `"answer":"S"`) {
		t.Fatalf("answers the model got: %s", got)
	}
	if got := lastToolResult(reqs[2]); !strings.Contains(got, "cancelled the questions") {
		t.Fatalf("a dismissed question: %s", got)
	}
}

func lastToolResult(r llmtest.Request) string {
	msgs := r.Messages()
	return msgs[len(msgs)-1].Text
}

// coder acp --continue: the first new thread continues the workspace's
// most recent session and replays it once its id is known to the editor.
func TestServeContinue(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer")}})
	dir := t.TempDir()
	f := &coreFactory{url: srv.OpenAIBaseURL()}
	conn, ed := serveIn(t, dir, f, false)
	first := newSessionIn(t, conn, dir)
	if _, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: first, Prompt: promptText("hello there")}); err != nil {
		t.Fatal(err)
	}
	ed.quit() // the editor restarts coder: the first one has ended
	conn, ed = serveIn(t, dir, f, true)
	if got := newSessionIn(t, conn, dir); got != first {
		t.Fatalf("--continue opened %s, want %s", got, first)
	}
	isUser := func(u sdk.SessionUpdate) bool { return u.UserMessageChunk != nil }
	waitUntil(t, "the replayed history", func() bool { return len(ed.seen(first, isUser)) == 1 && len(ed.seen(first, isText)) == 1 })
	if got := ed.seen(first, isText)[0].AgentMessageChunk.Content.Text.Text; got != "first answer" {
		t.Fatalf("replayed %q", got)
	}
	if again := newSessionIn(t, conn, dir); again == first {
		t.Fatal("--continue applies to the first new thread only")
	}
}

// The stop reasons a turn can end with besides end_turn and cancelled: a
// truncated answer, a refusal, and the step limit.
func TestServeStopReasons(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{
		// Cut off, continued once, cut off again: the answer stays truncated.
		{Text: "cut off mid", StopReason: "length"},
		{Text: "and again", StopReason: "length"},
		{Text: "I can't help with that.", StopReason: "content_filter"},
		llmtest.Calls(llmtest.Call("glob", `{"pattern":"*"}`)), // again and again
	}})
	conn, _, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	sid := newSessionIn(t, conn, dir)
	for _, want := range []sdk.StopReason{sdk.StopReasonMaxTokens, sdk.StopReasonRefusal, sdk.StopReasonMaxTurnRequests} {
		resp, err := conn.Prompt(context.Background(), sdk.PromptRequest{SessionId: sid, Prompt: promptText("go")})
		if err != nil || resp.StopReason != want {
			t.Fatalf("got %q %v, want %q", resp.StopReason, err, want)
		}
	}
}
