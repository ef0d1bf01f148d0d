package orchestrator

import (
	"context"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// person answers questions from a script (the REPL is tested in e2e).
type person struct{ answers []string }

func (p *person) Ask(_ context.Context, qs []Question) ([]string, error) {
	out := p.answers[:len(qs)]
	p.answers = p.answers[len(qs):]
	return out, nil
}

func TestExitPlanModeCleanContext(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("todowrite", `{"todos":[{"content":"write store.go","status":"pending"}]}`)),
		llmtest.Calls(llmtest.Call("exit_plan_mode", `{"plan":"PLAN-TEXT: create store.go"}`)),
		llmtest.Text("Implementing."),
	}}, nil, func(o *Options) {
		o.Agent = agent.PlanAgent()
		o.Front.Questioner = &person{answers: []string{planClean}}
	})
	if _, err := h.run("plan the store, with a long discussion before it"); err != nil {
		t.Fatal(err)
	}
	if h.orch.Status().Agent.Name != "build" {
		t.Fatalf("mode after approval: %s", h.orch.Status().Agent.Name)
	}
	msgs := h.srv.Requests()[2].Messages()
	if len(msgs) != 1 || !strings.Contains(msgs[0].Text, "PLAN-TEXT: create store.go") || !strings.Contains(msgs[0].Text, "[ ] 1. write store.go") {
		t.Fatalf("rebuilt context %+v", msgs)
	}
}

func TestQuestionsWithNobodyToAsk(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "q", Name: "question", Args: `{"questions":[{"question":"x?","options":[{"label":"a"}]}]}`}),
		llmtest.Text("assuming a"),
	}}, nil, func(o *Options) { o.Agent = agent.PlanAgent() })
	if _, err := h.run("ask"); err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, h.toolResults(1)["q"]); !strings.Contains(msg, "non-interactive") {
		t.Fatalf("got %q", msg)
	}
}
