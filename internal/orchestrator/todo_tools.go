package orchestrator

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/event"
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

func (todoRead) Name() string            { return "todoread" }
func (todoRead) Description() string     { return todoReadDescription }
func (todoRead) Schema() json.RawMessage { return json.RawMessage(`{"type":"object","properties":{}}`) }
func (todoRead) ReadOnly() bool          { return true }

func (t todoRead) Run(context.Context, json.RawMessage) (tools.Result, error) {
	todos := t.o.sess.Todos
	if len(todos) == 0 {
		return tools.Result{OK: true, Content: "no todos", Summary: "no todos"}, nil
	}
	return tools.Result{OK: true, Content: FormatTodos(todos), Summary: fmt.Sprintf("%d todos", len(todos))}, nil
}

func (todoWrite) Name() string        { return "todowrite" }
func (todoWrite) Description() string { return todoWriteDescription }
func (todoWrite) ReadOnly() bool      { return false }
func (todoWrite) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{"todos":{"type":"array","items":{"type":"object","properties":{"id":{"type":"string"},"content":{"type":"string"},"status":{"type":"string","enum":["pending","in_progress","done"]}},"required":["content","status"]}}},"required":["todos"]}`)
}

func (t todoWrite) Run(_ context.Context, args json.RawMessage) (tools.Result, error) {
	var a struct{ Todos []session.Todo }
	if err := json.Unmarshal(args, &a); err != nil {
		return tools.Failure("invalid todos: %v", err), nil
	}
	seen := map[string]bool{}
	for i := range a.Todos {
		td := &a.Todos[i]
		td.Content = strings.TrimSpace(td.Content)
		if td.Content == "" {
			return tools.Failure("todo %d has no content", i+1), nil
		}
		if td.ID == "" || seen[td.ID] {
			td.ID = strconv.Itoa(i + 1)
		}
		seen[td.ID] = true
	}
	t.o.sess.Todos = a.Todos
	t.o.dirty = true
	t.o.emitTodos()
	done := 0
	for _, td := range a.Todos {
		if td.Status == session.TodoDone {
			done++
		}
	}
	summary := fmt.Sprintf("%d todos, %d done", len(a.Todos), done)
	return tools.Result{OK: true, Content: "todo list saved: " + summary, Summary: summary}, nil
}

// FormatTodos renders a todo list for the model and for /todos.
func FormatTodos(todos []session.Todo) string {
	var b strings.Builder
	for _, td := range todos {
		mark := map[string]string{session.TodoDone: "[x]", session.TodoInProgress: "[~]"}[td.Status]
		if mark == "" {
			mark = "[ ]"
		}
		fmt.Fprintf(&b, "%s %s. %s\n", mark, td.ID, td.Content)
	}
	return strings.TrimRight(b.String(), "\n")
}

func (o *Orchestrator) emitTodos() {
	items := make([]event.TodoItem, len(o.sess.Todos))
	for i, td := range o.sess.Todos {
		items[i] = event.TodoItem{ID: td.ID, Content: td.Content, Status: td.Status}
	}
	o.emit(event.TodoUpdated{Todos: items})
}
