package commands

import (
	"context"
	"errors"
	"fmt"

	"github.com/coder-agent/coder/internal/orchestrator"
)

// Permissions is the policy as /permissions sees it.
type Permissions interface {
	Matrix() string
	Preset() string
	// SetPreset switches the preset; mode is "build" or "plan" when the
	// preset name was a mode, "" otherwise.
	SetPreset(name string) (mode string, err error)
}

// permissions prints the matrix, or switches the preset (build and plan
// also switch the mode, seed 02-orchestrator §7).
func (s *Set) permissions(_ context.Context, o *orchestrator.Orchestrator, args string) (string, error) {
	if s.Permissions == nil {
		return "", errors.New("no permission policy in this run")
	}
	if args == "" {
		return fmt.Sprintf("preset: %s · mode: %s\n%s", s.Permissions.Preset(), o.Agent().Name, s.Permissions.Matrix()), nil
	}
	mode, err := s.Permissions.SetPreset(args)
	if err != nil {
		return "", err
	}
	if a, ok := o.LookupAgent(mode); ok {
		o.SetAgent(a)
	}
	return fmt.Sprintf("permissions: %s · mode: %s", s.Permissions.Preset(), o.Agent().Name), nil
}

func todos(_ context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
	if len(o.Session().Todos) == 0 {
		return "no todos", nil
	}
	return orchestrator.FormatTodos(o.Session().Todos), nil
}
