package orchestrator

import (
	"context"
	"errors"
	"strings"

	"github.com/coder-agent/coder/internal/event"
)

// CommandHandler runs built-in and custom / commands. It lives outside this
// package (the commands package) and works through the orchestrator's API.
type CommandHandler interface {
	// RunCommand returns the command's output text. ErrUnknownCommand (wrapped
	// or not) says no such command exists.
	RunCommand(ctx context.Context, o *Orchestrator, name, args string) (string, error)
}

// ErrUnknownCommand is returned for a / command nobody handles.
var ErrUnknownCommand = errors.New("unknown command")

// TurnInput is returned (as an error) by a command that expands into a
// request for the model, such as a custom command: it runs as a normal turn.
type TurnInput struct{ Input string }

func (t *TurnInput) Error() string { return "run as a turn" }

// SetCommands installs the / command handler.
func (o *Orchestrator) SetCommands(h CommandHandler) { o.commands = h }

func (o *Orchestrator) runSlashCommand(ctx context.Context, in string) (Outcome, error) {
	name, args, _ := strings.Cut(strings.TrimPrefix(in, "/"), " ")
	args = strings.TrimSpace(args)
	var (
		text string
		err  error = ErrUnknownCommand
	)
	if o.commands != nil {
		text, err = o.commands.RunCommand(ctx, o, name, args)
	}
	var turn *TurnInput
	if errors.As(err, &turn) {
		return o.RunTurn(ctx, turn.Input)
	}
	if errors.Is(err, ErrUnknownCommand) {
		err = errors.New("unknown command /" + name + " (try /help)")
	}
	if err != nil {
		if isCancel(err) {
			return Outcome{State: event.StateAborted, Reason: "cancelled"}, err
		}
		o.emit(event.Error{Message: err.Error()})
		return Outcome{State: event.StateFailed, Reason: err.Error()}, err
	}
	o.emit(event.CommandOutput{Command: in, Text: text})
	return Outcome{State: event.StateCompleted, Result: text}, nil
}
