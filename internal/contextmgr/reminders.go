package contextmgr

import (
	"fmt"
	"strings"
)

// Todo is one item of the session's plan, as the todo tools keep it.
type Todo struct {
	ID      string
	Content string
	// Status is "pending", "in_progress" or "done" (others are shown as is).
	Status string
}

// TodoReminder formats the todo list as a reminder to add to the next user
// message (or tool result): after a compaction, and at the start of a turn
// when todos exist, so the model does not lose track of the plan. It is empty
// when there are no todos.
func TodoReminder(todos []Todo) string {
	if len(todos) == 0 {
		return ""
	}
	return "<system-reminder>\nTodo list:\n" + formatTodos(todos) + "</system-reminder>"
}

// formatTodos is one line per todo: "- [status] content (#id)". The status is
// spelled out because a word is as cheap as a checkbox and cannot be misread.
func formatTodos(todos []Todo) string {
	var b strings.Builder
	for _, t := range todos {
		status := t.Status
		if status == "" {
			status = "pending"
		}
		fmt.Fprintf(&b, "- [%s] %s", status, strings.TrimSpace(t.Content))
		if t.ID != "" {
			fmt.Fprintf(&b, " (#%s)", t.ID)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
