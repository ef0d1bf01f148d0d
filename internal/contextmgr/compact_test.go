package contextmgr

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/session"
)

func user(s string) chat.Message { return chat.Message{Role: chat.RoleUser, Content: s} }
func asst(s string) chat.Message { return chat.Message{Role: chat.RoleAssistant, Content: s} }

// call is an assistant message calling bash once per id.
func call(ids ...string) chat.Message {
	m := chat.Message{Role: chat.RoleAssistant}
	for _, id := range ids {
		m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: id, Name: "bash", Arguments: `{"command":"go test ./` + id + `"}`})
	}
	return m
}

func result(id, out string) chat.Message {
	return chat.Message{Role: chat.RoleTool, ToolCallID: id, ToolName: "bash", Content: out}
}

// checkHistory fails unless msgs is a history a provider accepts: it starts
// with a user message, no two user messages are adjacent, and every tool
// result directly follows the call it answers.
func checkHistory(t *testing.T, msgs []chat.Message) {
	t.Helper()
	if len(msgs) == 0 || msgs[0].Role != chat.RoleUser {
		t.Fatalf("history does not start with a user message: %v", roles(msgs))
	}
	open := map[string]bool{}
	for i, m := range msgs {
		switch {
		case m.Role == chat.RoleTool:
			if !open[m.ToolCallID] {
				t.Errorf("message %d: result %s without its call just before: %v", i, m.ToolCallID, roles(msgs))
			}
			delete(open, m.ToolCallID)
		case len(open) > 0:
			t.Errorf("message %d: calls %v left without results", i, open)
		}
		if m.Role == chat.RoleUser && i > 0 && msgs[i-1].Role == chat.RoleUser {
			t.Errorf("messages %d and %d are both user messages", i-1, i)
		}
		if m.Role == chat.RoleAssistant {
			open = map[string]bool{}
			for _, c := range m.ToolCalls {
				open[c.ID] = true
			}
		}
	}
}

func roles(msgs []chat.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		b.WriteString(string(m.Role[0]))
		if len(m.ToolCalls) > 0 {
			fmt.Fprintf(&b, "%d", len(m.ToolCalls))
		}
	}
	return b.String()
}

func TestPruneKeepsPairing(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("=== RUN TestX\n--- PASS: TestX (0.00s)\n", 100)
	msgs := []chat.Message{
		user("run the tests"), call("a", "b"), result("a", big), result("b", "ok"),
		asst("all pass"), user("again"), call("c"), result("c", big),
	}
	orig := strings.Clone(msgs[2].Content)
	out, saved := Prune(msgs, 2)
	if len(out) != len(msgs) {
		t.Fatalf("Prune dropped messages: %d → %d", len(msgs), len(out))
	}
	checkHistory(t, out)
	if want := fmt.Sprintf("[output pruned: %d bytes; re-run the tool if needed]", len(big)); out[2].Content != want {
		t.Errorf("old output = %q, want %q", out[2].Content, want)
	}
	if out[2].ToolCallID != "a" || out[3].Content != "ok" || out[7].Content != big {
		t.Error("pruned the wrong messages: ids, small outputs and recent outputs must stay")
	}
	if msgs[2].Content != orig {
		t.Error("Prune modified its input")
	}
	if saved < EstimateText(big)/2 {
		t.Errorf("saved = %d tokens, want about %d", saved, EstimateText(big))
	}
	if _, again := Prune(out, 2); again != 0 {
		t.Errorf("pruning twice saved %d more", again)
	}
}

func TestSplit(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name   string
		msgs   []chat.Message
		recent int
		kept   string // roles of kept
	}{
		{"plain", []chat.Message{user("1"), asst("2"), user("3"), asst("4")}, 2, "ua"},
		{"boundary on a result", []chat.Message{user("1"), call("a"), result("a", "x"), asst("2"), user("3")}, 3, "a1tau"},
		{"parallel calls at the boundary", []chat.Message{user("1"), asst("2"), user("3"), call("a", "b", "c"),
			result("a", "x"), result("b", "x"), result("c", "x"), asst("4")}, 2, "a3ttta"},
		{"boundary right after the results", []chat.Message{user("1"), call("a"), result("a", "x"), user("2"), asst("3")}, 2, "ua"},
		{"recent covers all", []chat.Message{user("1"), asst("2")}, 5, "ua"},
		{"recent zero", []chat.Message{user("1"), asst("2")}, 0, ""},
		{"all results", []chat.Message{call("a", "b"), result("a", "x"), result("b", "x")}, 1, "a2tt"},
	} {
		t.Run(c.name, func(t *testing.T) {
			old, kept := Split(c.msgs, c.recent)
			if got := roles(kept); got != c.kept {
				t.Errorf("kept = %s, want %s", got, c.kept)
			}
			if len(old)+len(kept) != len(c.msgs) {
				t.Errorf("lost messages: %d + %d != %d", len(old), len(kept), len(c.msgs))
			}
			if len(kept) > 0 && kept[0].Role == chat.RoleTool {
				t.Error("kept starts with a tool result")
			}
			if cap(old) != len(old) {
				t.Error("appending to old would overwrite kept")
			}
		})
	}
}

func TestShouldCompact(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		tokens, limit int
		threshold     float64
		want          bool
	}{
		{801, 1000, 0.8, true}, {800, 1000, 0.8, false}, {5000, 0, 0.8, false},
		{850, 1000, 0, true}, {750, 1000, 0, false}, {950, 1000, 0.9, true},
	} {
		if got := ShouldCompact(c.tokens, c.limit, c.threshold); got != c.want {
			t.Errorf("ShouldCompact(%d, %d, %v) = %v", c.tokens, c.limit, c.threshold, got)
		}
	}
}

// longSession is a session whose latest request is followed by a long tool
// loop, so the request itself falls in the part that gets summarised.
func longSession() []chat.Message {
	msgs := []chat.Message{user("Add a --json flag to the report command"), asst("I'll start by reading the command.")}
	for i := range 6 {
		id := fmt.Sprintf("r%d", i)
		msgs = append(msgs, call(id), result(id, strings.Repeat(fmt.Sprintf("report.go line %d\n", i), 40)))
	}
	msgs = append(msgs, asst(strings.Repeat("I added the flag and its test; reasoning about edge cases. ", 40)),
		user(latest))
	for i := range 8 {
		id := fmt.Sprintf("s%d", i)
		msgs = append(msgs, call(id), result(id, strings.Repeat("FAIL parser_test.go:12 want 3 got 4\n", 3)),
			asst(strings.Repeat("Looking at the parser failure again. ", 30)))
	}
	return append(msgs, call("last"), result("last", "ok"))
}

const latest = "Now fix the failing parser test — keep the public API unchanged"

func compactor(t *testing.T, steps ...llmtest.Step) (*Compactor, *llmtest.Server) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: steps})
	return &Compactor{
		Provider:       openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: srv.OpenAIBaseURL()}, Model: "m"}),
		Model:          "m",
		RecentMessages: 4,
		Limit:          4000,
		Threshold:      0.8,
		Prune:          true,
		Overhead:       300,
	}, srv
}

func TestCompactEndToEnd(t *testing.T) {
	t.Parallel()
	const summary = "## Goal\nAdd a --json flag.\n## Next step\nFix the parser test."
	c, srv := compactor(t, llmtest.Text(summary))
	c.Limit, c.Threshold = 10000, 0.3 // the whole transcript fits the summary request
	msgs := longSession()
	pinned := Pinned{
		Rules: "Always run make check.",
		Todos: []session.Todo{{ID: "1", Content: "Add --json", Status: "done"}, {ID: "2", Content: "Fix parser test", Status: "in_progress"}},
	}
	res, err := c.Compact(context.Background(), msgs, pinned)
	if err != nil {
		t.Fatal(err)
	}

	reqs := srv.Requests()
	if len(reqs) != 1 {
		t.Fatalf("summary calls = %d, want 1", len(reqs))
	}
	sent := reqs[0].Messages()
	if len(sent) != 1 || !strings.Contains(reqs[0].System(), "## Decisions") {
		t.Fatalf("summary request: system %q, %d messages", reqs[0].System(), len(sent))
	}
	for _, want := range []string{"Add a --json flag to the report command", "[assistant called bash]", "report.go line 0", latest} {
		if !strings.Contains(sent[0].Text, want) {
			t.Errorf("the summary request lacks %q", want)
		}
	}

	if res.Summary != summary || res.Usage.IsZero() {
		t.Errorf("Summary %q, Usage %+v", res.Summary, res.Usage)
	}
	checkHistory(t, res.Messages)
	if !res.Pruned || keptHas(res.Messages[1:], latest) {
		t.Errorf("the scenario is wrong: Pruned %v, latest request among the kept messages", res.Pruned)
	}
	head := res.Messages[0].Content
	t.Logf("compacted history: %s, first message:\n%s", roles(res.Messages), head)
	for _, want := range []string{SummaryTag, summary, latest, "[~] 2. Fix parser test", "Always run make check."} {
		if !strings.Contains(head, want) {
			t.Errorf("the compacted history lacks %q:\n%s", want, head)
		}
	}
	if res.TokensAfter >= res.TokensBefore || res.TokensBefore != c.Overhead+Estimate("", msgs, nil) {
		t.Errorf("tokens %d → %d", res.TokensBefore, res.TokensAfter)
	}
	if last := res.Messages[len(res.Messages)-1]; last.ToolCallID != "last" {
		t.Errorf("the recent messages were not kept verbatim: last = %+v", last)
	}
}

func TestCompactPruneOnly(t *testing.T) {
	t.Parallel()
	c, srv := compactor(t) // no steps: any model call fails
	c.Limit = 2500
	big := strings.Repeat("some long tool output line\n", 200)
	msgs := []chat.Message{user("check everything"), call("a"), result("a", big), call("b"), result("b", big),
		asst("done"), user("thanks"), asst("welcome")}
	if !ShouldCompact(c.size(msgs), c.Limit, c.Threshold) {
		t.Fatal("the test history does not need compacting")
	}
	res, err := c.Compact(context.Background(), msgs, Pinned{})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("prune-only compaction made %d model calls", n)
	}
	if !res.Pruned || res.Summary != "" || res.TokensAfter >= res.TokensBefore || len(res.Messages) != len(msgs) {
		t.Errorf("Pruned %v, Summary %q, tokens %d → %d", res.Pruned, res.Summary, res.TokensBefore, res.TokensAfter)
	}
	checkHistory(t, res.Messages)
}

func TestCompactNowMergesIntoKeptUser(t *testing.T) {
	t.Parallel()
	c, srv := compactor(t, llmtest.Text("summary text"))
	c.RecentMessages = 2
	msgs := []chat.Message{user("first"), asst("answer"), user(latest), asst("on it")}
	res, err := c.CompactNow(context.Background(), msgs, Pinned{})
	if err != nil {
		t.Fatal(err)
	}
	checkHistory(t, res.Messages)
	if len(res.Messages) != 2 || len(srv.Requests()) != 1 {
		t.Fatalf("got %v after %d calls", roles(res.Messages), len(srv.Requests()))
	}
	head := res.Messages[0].Content
	if !strings.HasPrefix(head, SummaryTag) || strings.Count(head, latest) != 1 || !strings.HasSuffix(head, latest) {
		t.Errorf("want the summary merged before the kept request, the request once:\n%s", head)
	}
}

func TestCompactNothingToDo(t *testing.T) {
	t.Parallel()
	c, _ := compactor(t)
	_, err := c.CompactNow(context.Background(), []chat.Message{user("hi"), asst("hello")}, Pinned{})
	if err != ErrNothingToCompact {
		t.Errorf("err = %v, want ErrNothingToCompact", err)
	}
}

func TestSummarizeFitsHalfTheLimit(t *testing.T) {
	t.Parallel()
	c, srv := compactor(t, llmtest.Text("ok"))
	c.Limit = 3000
	old := []chat.Message{user("THE ORIGINAL GOAL")}
	for i := range 200 {
		old = append(old, asst(fmt.Sprintf("step %d: %s", i, strings.Repeat("words ", 50))))
		old = append(old, user("continue"))
	}
	old = append(old, asst("THE NEWEST STEP"))
	if _, _, err := c.Summarize(context.Background(), old, Pinned{}); err != nil {
		t.Fatal(err)
	}
	body := srv.Requests()[0].Messages()[0].Text
	if n := EstimateText(body) + EstimateText(summarizerPrompt); n > c.Limit/2 {
		t.Errorf("summary request is %d tokens, over half the limit (%d)", n, c.Limit/2)
	}
	for _, want := range []string{"THE ORIGINAL GOAL", "THE NEWEST STEP", "messages omitted to fit"} {
		if !strings.Contains(body, want) {
			t.Errorf("summary request lacks %q", want)
		}
	}
}
