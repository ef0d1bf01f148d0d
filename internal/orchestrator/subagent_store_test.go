package orchestrator

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/permission"
	"github.com/coder-agent/coder/internal/session"
)

// TestSubagentToolCallsStoredTaggedNotSent: a subagent's tool calls and
// results are in the store (SQLite and the JSON snapshot), tagged with the
// task call and the kind, and survive a reload; the parent's history and
// its next model requests carry only the task's result.
func TestSubagentToolCallsStoredTaggedNotSent(t *testing.T) {
	storeDir := filepath.Join(t.TempDir(), ".coder")
	store, err := session.Open(session.StoreOptions{Dir: storeDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "task_1", Name: "task", Args: `{"description":"look at a","prompt":"read a.txt and report","agent":"explore"}`}),
		llmtest.Calls(llmtest.ToolCall{ID: "sub_read_1", Name: "read", Args: `{"path":"a.txt"}`}),
		llmtest.Text("a.txt says SECRET-WORD-hello"),
		llmtest.Text("The subagent says hello."),
		llmtest.Text("Still here."),
	}}, nil, subCaps, func(o *Options) { o.Persistence.Store = store })
	h.write("a.txt", "SECRET-WORD-hello\n")
	if out, err := h.run("investigate"); err != nil || out.Result != "The subagent says hello." {
		t.Fatalf("turn: %+v %v", out, err)
	}
	if out, err := h.run("and now?"); err != nil || out.Result != "Still here." {
		t.Fatalf("second turn: %+v %v", out, err)
	}
	id := h.orch.conv.sess.ID

	// The parent's requests after the subagent: the task's result, none of
	// the subagent's own calls.
	reqs := h.srv.Requests()
	for _, i := range []int{3, 4} {
		if body := string(reqs[i].Body); strings.Contains(body, "sub_read_1") {
			t.Fatalf("request %d carries the subagent's tool call:\n%s", i, body)
		}
		for _, m := range reqs[i].Messages() {
			if m.Role == "user" && m.Text == "read a.txt and report" {
				t.Fatalf("request %d carries the subagent's prompt as a message", i)
			}
		}
	}
	if res := h.toolResults(3); !strings.Contains(res["task_1"], "SECRET-WORD-hello") {
		t.Fatalf("task result %q", res["task_1"])
	}

	// A fresh store over the same files: the run is there, tagged.
	again, err := session.Open(session.StoreOptions{Dir: storeDir})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	s, err := again.Load(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range s.Messages {
		if m.ToolCallID == "sub_read_1" || len(m.ToolCalls) > 0 && m.ToolCalls[0].ID == "sub_read_1" {
			t.Fatalf("the subagent's call is in the parent's messages: %+v", m)
		}
	}
	if len(s.Subagents) != 1 {
		t.Fatalf("%d subagent runs stored, want 1: %+v", len(s.Subagents), s.Subagents)
	}
	run := s.Subagents[0]
	if run.TaskCallID != "task_1" || run.Agent != "explore" || run.Subagent == "" || run.RunID == "" || run.Started.IsZero() {
		t.Fatalf("run not tagged: %+v", run)
	}
	var call, result bool
	for _, m := range run.Messages {
		if m.Role == chat.RoleAssistant && len(m.ToolCalls) == 1 && m.ToolCalls[0].ID == "sub_read_1" && m.ToolCalls[0].Name == "read" {
			call = true
		}
		if m.Role == chat.RoleTool && m.ToolCallID == "sub_read_1" && strings.Contains(m.Content, "SECRET-WORD-hello") {
			result = true
		}
	}
	if !call || !result || run.Messages[0].Content != "read a.txt and report" {
		t.Fatalf("run messages: %+v", run.Messages)
	}
	snap, err := os.ReadFile(again.SnapshotPath(id))
	if err != nil || !strings.Contains(string(snap), `"task_call_id": "task_1"`) || !strings.Contains(string(snap), `"sub_read_1"`) {
		t.Fatalf("snapshot (%v):\n%s", err, snap)
	}
}

// TestHeadlessDenialSaysPolicyAndWhy: when nobody can be asked, the model
// is told the policy refused the call without asking, and why.
func TestHeadlessDenialSaysPolicyAndWhy(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "c1", Name: "bash", Args: `{"command":"git push --force origin main"}`}),
		llmtest.Text("ok"),
	}}, nil, func(o *Options) {
		o.Front.Approver = permission.NonInteractive{}
	})
	if _, err := h.run("push"); err != nil {
		t.Fatal(err)
	}
	msg := failure(t, h.toolResults(1)["c1"])
	for _, want := range []string{"policy", "without asking", "force", "approval.allow_danger"} {
		if !strings.Contains(msg, want) {
			t.Fatalf("denial %q does not say %q", msg, want)
		}
	}
	if strings.Contains(msg, "user denied") {
		t.Fatalf("denial %q blames a person nobody asked", msg)
	}
}

// TestTwoSubagentRunsStoredApart: two task calls in one message each get
// their own stored run, tagged with their own task call. (General
// subagents run one after the other, so the script is deterministic; the
// concurrent case is TestTwoSubagentsReadConcurrently, with a store.)
func TestTwoSubagentRunsStoredApart(t *testing.T) {
	store, err := session.Open(session.StoreOptions{Dir: filepath.Join(t.TempDir(), ".coder")})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { store.Close() })
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(
			llmtest.ToolCall{ID: "t1", Name: "task", Args: `{"prompt":"read a.txt","agent":"general"}`},
			llmtest.ToolCall{ID: "t2", Name: "task", Args: `{"prompt":"list files","agent":"general"}`},
		),
		llmtest.Calls(llmtest.ToolCall{ID: "s1", Name: "read", Args: `{"path":"a.txt"}`}), llmtest.Text("hello"),
		llmtest.Calls(llmtest.ToolCall{ID: "s2", Name: "list", Args: `{}`}), llmtest.Text("one file"),
		llmtest.Text("Both done."),
	}}, nil, subCaps, func(o *Options) { o.Persistence.Store = store })
	h.write("a.txt", "hello\n")
	if out, err := h.run("fan out"); err != nil || out.Result != "Both done." {
		t.Fatalf("turn: %+v %v", out, err)
	}
	s, err := store.Load(context.Background(), h.orch.conv.sess.ID)
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, r := range s.Subagents {
		for _, m := range r.Messages {
			for _, c := range m.ToolCalls {
				got[r.TaskCallID+"/"+r.Agent] += c.ID
			}
		}
	}
	if len(s.Subagents) != 2 || got["t1/general"] != "s1" || got["t2/general"] != "s2" || s.Subagents[0].RunID == s.Subagents[1].RunID {
		t.Fatalf("runs: %v", got)
	}
}
