package orchestrator

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/contextmgr"
	"github.com/coder-agent/coder/internal/llm"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/llm/openai"
	"github.com/coder-agent/coder/internal/session"
)

// A 60-step session whose tool outputs overflow the context several times
// completes, and after each compaction the next request still carries the
// rules, the todo list and the latest request; no request exceeds the limit.
func TestLongSessionCompactsAndKeepsWhatMatters(t *testing.T) {
	const (
		limit   = 12_000
		steps   = 60
		rule    = "RULE-7: indent with tabs"
		request = "LATEST-REQUEST: read all sixty files and summarise them"
		todo    = "TODO-ALPHA read the files"
	)
	summaries := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{
		llmtest.Text("Goal: read the files. Progress: several files read; each holds filler text."),
	}})
	var sc llmtest.Scenario
	for i := range steps {
		sc.Steps = append(sc.Steps, llmtest.Calls(llmtest.Call("read", fmt.Sprintf(`{"path":"f%02d.txt"}`, i))))
	}
	sc.Steps = append(sc.Steps, llmtest.Text("All sixty files are filler."))
	sess := session.New(time.Now(), "fake", "build")
	sess.Todos = []session.Todo{{ID: "1", Content: todo, Status: session.TodoInProgress}}
	h := newHarness(t, sc, nil, func(o *Options) {
		o.Limits.MaxSteps = steps + 5
		o.Limits.ContextLimit = limit
		o.Persistence.Session = sess
		o.Prompt.Rules = []contextmgr.RulesFile{{Name: "AGENTS.md", Content: rule}}
		o.Compaction = CompactionOptions{Auto: true, Threshold: 0.6, RecentMessages: 6,
			Provider: llm.WithRetry(openai.New(openai.Config{Endpoint: llm.Endpoint{BaseURL: summaries.OpenAIBaseURL()}, Model: "fake"}), llm.RetryPolicy{})}
	})
	filler := strings.Repeat("filler words fill the context window quickly; ", 110) // ~1,300 tokens
	for i := range steps {
		h.write(fmt.Sprintf("f%02d.txt", i), fmt.Sprintf("file %d\n%s\n", i, filler))
	}
	out, err := h.run(request)
	if err != nil || out.Result != "All sixty files are filler." {
		t.Fatalf("turn: %+v %v", out, err)
	}
	if n := len(summaries.Requests()); n < 3 {
		t.Fatalf("%d compactions, want several", n)
	}
	compactions := 0
	for i, r := range h.srv.Requests() {
		if tokens := contextmgr.EstimateText(string(r.Body)); tokens > limit {
			t.Errorf("request %d is %d tokens, over the %d limit", i, tokens, limit)
		}
		if !strings.Contains(r.System(), rule) {
			t.Errorf("request %d lost the rules", i)
		}
		msgs := r.Messages()
		if !strings.HasPrefix(msgs[0].Text, contextmgr.SummaryTag) {
			continue
		}
		compactions++
		if !strings.Contains(msgs[0].Text, request) || !strings.Contains(msgs[0].Text, todo) {
			t.Errorf("request %d after compaction lost the request or the todos:\n%s", i, msgs[0].Text)
		}
	}
	t.Logf("%d main requests, %d summaries, %d requests started from a summary", len(h.srv.Requests()), len(summaries.Requests()), compactions)
	if compactions == 0 {
		t.Fatal("no request started from a summary")
	}
}
