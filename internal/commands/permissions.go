package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/session"
)

// permissions prints the matrix, or switches the preset (build and plan
// also switch the mode).
func (x *Dispatcher) permissions(_ context.Context, args string) (string, error) {
	p := x.deps.Permissions
	if p == nil {
		return "", errors.New("no permission policy in this run")
	}
	if args == "" {
		a := x.core.Status().Agent
		return fmt.Sprintf("preset: %s · mode: %s\n%s", p.Preset(), a.Name, p.Matrix(a.Mode)), nil
	}
	mode, err := p.SetPreset(args)
	if err != nil {
		return "", err
	}
	if a, ok := x.deps.Agents.Lookup(string(mode)); ok && mode != "" {
		x.core.SetAgent(a)
	}
	return fmt.Sprintf("permissions: %s · mode: %s", p.Preset(), x.core.Status().Agent.Name), nil
}

func (x *Dispatcher) todos(context.Context, string) (string, error) {
	todos := x.core.Status().Todos
	if len(todos) == 0 {
		return "no todos", nil
	}
	return session.FormatTodos(todos), nil
}
