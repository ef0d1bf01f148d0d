package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/session"
)

// listLimit is how many sessions /sessions and /resume show.
const listLimit = 20

// ReplayEntries is how much of a resumed session's history is shown.
const ReplayEntries = 40

func (x *Dispatcher) newSession(context.Context, string) (string, error) {
	s := x.core.NewSession()
	return "new session " + s.ID, nil
}

func (x *Dispatcher) sessions(ctx context.Context, _ string) (string, error) {
	return x.list(ctx)
}

func (x *Dispatcher) list(ctx context.Context) (string, error) {
	if x.deps.Sessions == nil {
		return "", errors.New("sessions are not stored in this run")
	}
	sums, err := x.deps.Sessions.List(ctx, listLimit)
	if err != nil {
		return "", err
	}
	if len(sums) == 0 {
		return "no sessions yet in this workspace", nil
	}
	return strings.TrimRight(session.FormatList(sums, x.deps.Location), "\n"), nil
}

// resume switches to a stored session by id; ids only, no indexes or aliases.
func (x *Dispatcher) resume(ctx context.Context, args string) (string, error) {
	if args == "" {
		text, err := x.list(ctx)
		if err != nil {
			return "", err
		}
		return text + "\nresume one with /resume <session-id>", nil
	}
	if x.deps.Sessions == nil {
		return "", errors.New("sessions are not stored in this run")
	}
	sess, err := x.deps.Sessions.Load(ctx, strings.Fields(args)[0])
	if err != nil {
		return "", err
	}
	if err := x.core.Resume(ctx, sess); err != nil {
		return "", err
	}
	x.deps.Sink.Emit(x.core.Replay(ReplayEntries))
	return fmt.Sprintf("resumed session %s (%s): %s", sess.ID, plural.Count(len(sess.Messages), "message", "messages"), sess.Title), nil
}
