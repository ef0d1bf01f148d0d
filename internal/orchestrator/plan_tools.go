package orchestrator

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

//go:embed description/question.md
var questionDescription string

//go:embed description/exit_plan_mode.md
var exitPlanDescription string

// Question is one multiple-choice question; the first option is the
// recommended one.
type Question struct {
	Question string           `json:"question"`
	Options  []QuestionOption `json:"options"`
}

// QuestionOption is one choice; the first is the recommended one.
type QuestionOption struct {
	Label       string `json:"label"`
	Description string `json:"description,omitempty"`
}

// Questioner asks a person questions, one at a time, and returns one answer
// per question: an option's label or the person's own words. Esc returns
// ErrQuestionsCancelled; a cancelled run returns ctx.Err().
type Questioner interface {
	Ask(ctx context.Context, qs []Question) ([]string, error)
}

// ErrQuestionsCancelled: the person dismissed the questions.
var ErrQuestionsCancelled = errors.New("the user cancelled the questions")

type questionTool struct{ o *Orchestrator }

type questionArgs struct{ Questions []Question }

func (questionTool) Name() string        { return tools.Question }
func (questionTool) Description() string { return questionDescription }

// Facts: a question is one interaction at a time (kind other: never run
// concurrently); it is plan mode's.
func (questionTool) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolOther, Effect: tools.EffectNone, Plan: true, PlanOnly: true, Claude: []string{"AskUserQuestion"}}
}
func (questionTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"questions":{"type":"array","items":{"type":"object","properties":{"question":{"type":"string"},"options":{"type":"array","items":{"type":"object","properties":{"label":{"type":"string"},"description":{"type":"string"}},"required":["label"]}}},"required":["question","options"]}}},"required":["questions"]}`)
}

func (questionTool) Prepare(c *tools.Call) error {
	var a questionArgs
	if err := json.Unmarshal(c.Input, &a); err != nil || len(a.Questions) == 0 || len(a.Questions) > 4 {
		return errors.New("give 1 to 4 questions, each with options")
	}
	c.Args = &a
	return nil
}

func (t questionTool) Run(ctx context.Context, c *tools.Call) (tools.Result, error) {
	a := c.Args.(*questionArgs)
	answers, fail, err := t.o.ask(ctx, a.Questions)
	if fail != nil || err != nil {
		return derefResult(fail), err
	}
	type qa struct {
		Question string `json:"question"`
		Answer   string `json:"answer"`
	}
	out := make([]qa, len(a.Questions))
	for i, q := range a.Questions {
		out[i] = qa{q.Question, answers[i]}
	}
	b, _ := json.Marshal(out)
	return tools.Result{OK: true, Content: string(b), Summary: strings.Join(answers, "; ")}, nil
}

// ask puts questions to the person; fail is the tool result when there is
// nobody to ask or they dismissed the questions.
func (o *Orchestrator) ask(ctx context.Context, qs []Question) ([]string, *tools.Result, error) {
	if o.opts.Front.Questioner == nil {
		r := tools.Failure("nobody can answer questions in this run (non-interactive); make a reasonable assumption and state it")
		return nil, &r, nil
	}
	answers, err := o.opts.Front.Questioner.Ask(ctx, qs)
	switch {
	case errors.Is(err, ErrQuestionsCancelled):
		r := tools.Failure("the user cancelled the questions without answering; do not ask them again unless you must")
		return nil, &r, nil
	case err != nil:
		return nil, nil, err
	case len(answers) != len(qs):
		return nil, nil, fmt.Errorf("question: %d answers for %d questions", len(answers), len(qs))
	}
	return answers, nil, nil
}

func derefResult(r *tools.Result) tools.Result {
	if r == nil {
		return tools.Result{}
	}
	return *r
}

type exitPlanTool struct{ o *Orchestrator }

// The choices exit_plan_mode offers: build keeping the conversation, build
// from a clean context holding only the plan and the todos, or keep planning.
const (
	planKeep  = "Start building, keep this conversation"
	planClean = "Start building with a clean context (only the plan and todos)"
	planMore  = "Keep planning"
)

type exitPlanArgs struct{ Plan string }

func (exitPlanTool) Name() string        { return tools.ExitPlanMode }
func (exitPlanTool) Description() string { return exitPlanDescription }
func (exitPlanTool) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolSwitchMode, Effect: tools.EffectNone, Plan: true, PlanOnly: true, Claude: []string{"ExitPlanMode"}}
}
func (exitPlanTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"plan":{"type":"string","description":"the plan, in Markdown"}},"required":["plan"]}`)
}

func (exitPlanTool) Prepare(c *tools.Call) error {
	var a exitPlanArgs
	if err := json.Unmarshal(c.Input, &a); err != nil || strings.TrimSpace(a.Plan) == "" {
		return errors.New("give the plan")
	}
	c.Args = &a
	return nil
}

func (t exitPlanTool) Run(ctx context.Context, c *tools.Call) (tools.Result, error) {
	a := c.Args.(*exitPlanArgs)
	t.o.emit(event.CommandOutput{Command: tools.ExitPlanMode, Block: "PLAN", Text: strings.TrimSpace(a.Plan)})
	answers, fail, err := t.o.ask(ctx, []Question{{Question: "Start building with this plan?", Options: []QuestionOption{
		{Label: planKeep}, {Label: planClean}, {Label: planMore},
	}}})
	if fail != nil || err != nil {
		return derefResult(fail), err
	}
	switch answers[0] {
	case planKeep:
		t.o.SetAgent(agent.BuildAgent())
		return tools.Result{OK: true, Content: "The user approved the plan. You are in build mode now: implement it step by step and verify it.", Summary: "approved"}, nil
	case planClean:
		t.o.SetAgent(agent.BuildAgent())
		t.o.rebuild = a.Plan
		return tools.Result{OK: true, Content: "The user approved the plan; the context restarts with it.", Summary: "approved, clean context"}, nil
	}
	msg := "The user wants to keep planning."
	if answers[0] != planMore {
		msg += " Their words: " + answers[0]
	}
	return tools.Result{OK: true, Content: msg, Summary: "keep planning"}, nil
}

// applyRebuild starts the history afresh with only the approved plan and
// the todos (exit_plan_mode's clean-context choice).
func (o *Orchestrator) applyRebuild(ctx context.Context) error {
	plan := o.rebuild
	o.rebuild = ""
	content := "Implement this approved plan:\n\n" + plan
	if todos := o.conv.todos(); len(todos) > 0 {
		content += "\n\nTodo list:\n" + session.FormatTodos(todos)
	}
	o.conv.latestInput = content
	o.emit(event.Notice{Text: "context rebuilt: only the plan and the todos remain"})
	return o.conv.replace(ctx, []chat.Message{{Role: chat.RoleUser, Content: content}}, false)
}
