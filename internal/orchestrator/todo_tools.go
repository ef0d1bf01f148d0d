package orchestrator

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

//go:embed description/todowrite.md
var todoWriteDescription string

//go:embed description/todoread.md
var todoReadDescription string

// todoRead and todoWrite are state tools: they act on the orchestrator's
// current session, so they are registered by the orchestrator itself.
type todoRead struct{ o *Orchestrator }
type todoWrite struct{ o *Orchestrator }

func (todoRead) Name() string            { return tools.TodoRead }
func (todoRead) Description() string     { return todoReadDescription }
func (todoRead) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (todoRead) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolRead, Effect: tools.EffectNone, Plan: true}
}
func (todoRead) Prepare(*tools.Call) error {
	return nil
}

func (t todoRead) Run(context.Context, *tools.Call) (tools.Result, error) {
	todos := t.o.conv.todos()
	if len(todos) == 0 {
		return tools.Result{OK: true, Content: "no todos", Summary: "no todos"}, nil
	}
	return tools.Result{OK: true, Content: session.FormatTodos(todos), Summary: plural.Count(len(todos), "todo", "todos")}, nil
}

type todoWriteArgs struct{ Todos []session.Todo }

func (todoWrite) Name() string        { return tools.TodoWrite }
func (todoWrite) Description() string { return todoWriteDescription }
func (todoWrite) Facts() tools.Facts {
	return tools.Facts{Kind: chat.ToolThink, Effect: tools.EffectNone, Plan: true, PlanOnly: true, Claude: []string{"TodoWrite"}}
}
func (todoWrite) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","done"]}},"required":["content","status"]}}},"required":["todos"]}`)
}

// Prepare checks the list: every todo has content; missing or repeated
// ids are numbered.
func (todoWrite) Prepare(c *tools.Call) error {
	var a todoWriteArgs
	if err := json.Unmarshal(c.Input, &a); err != nil {
		return err
	}
	seen := map[string]bool{}
	for i := range a.Todos {
		td := &a.Todos[i]
		td.Content = strings.TrimSpace(td.Content)
		if td.Content == "" {
			return fmt.Errorf("todo %d has no content", i+1)
		}
		if td.ID == "" || seen[td.ID] {
			td.ID = strconv.Itoa(i + 1)
		}
		seen[td.ID] = true
	}
	c.Args = &a
	c.ReadOnly = false // it changes the session's plan
	return nil
}

func (t todoWrite) Run(_ context.Context, c *tools.Call) (tools.Result, error) {
	todos := c.Args.(*todoWriteArgs).Todos
	t.o.conv.setTodos(todos)
	t.o.emit(event.TodoUpdated{Todos: todos})
	done := 0
	for _, td := range todos {
		if td.Status == session.TodoDone {
			done++
		}
	}
	summary := fmt.Sprintf("%s, %d done", plural.Count(len(todos), "todo", "todos"), done)
	return tools.Result{OK: true, Content: "todo list saved: " + summary, Summary: summary}, nil
}
