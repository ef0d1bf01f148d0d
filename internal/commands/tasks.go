package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// tasks lists the session's background tasks (bash with background: true),
// or stops one: /tasks stop <id>.
func (x *Dispatcher) tasks(_ context.Context, args string) (string, error) {
	if x.deps.Tasks == nil {
		return "", errors.New("background tasks are not available in this run")
	}
	if verb, id, _ := strings.Cut(strings.TrimSpace(args), " "); verb == "stop" {
		if err := x.deps.Tasks.Stop(strings.TrimSpace(id)); err != nil {
			return "", err
		}
		return "stopped " + strings.TrimSpace(id), nil
	} else if verb != "" {
		return "", fmt.Errorf("usage: /tasks, or /tasks stop <id>")
	}
	list := x.deps.Tasks.List()
	if len(list) == 0 {
		return "no background tasks", nil
	}
	var b strings.Builder
	now := time.Now()
	fmt.Fprintf(&b, "%-8s %-10s %6s  %s\n", "id", "status", "ran", "command")
	for _, t := range list {
		status := "running"
		if t.ExitCode >= 0 {
			status = fmt.Sprintf("exited %d", t.ExitCode)
		}
		cmd, _, more := strings.Cut(t.Command, "\n")
		if r := []rune(cmd); len(r) > 60 {
			cmd, more = string(r[:60]), true
		}
		if more {
			cmd += "…"
		}
		fmt.Fprintf(&b, "%-8s %-10s %6s  %s\n", t.ID, status, t.RunTime(now).Round(time.Second), cmd)
	}
	return strings.TrimRight(b.String(), "\n"), nil
}
