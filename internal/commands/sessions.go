package commands

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
)

// listLimit is how many sessions /sessions and /resume show.
const listLimit = 20

func newSession(_ context.Context, o *orchestrator.Orchestrator, _ string) (string, error) {
	s := o.NewSession()
	return "new session " + s.ID, nil
}

func (s *Set) sessions(ctx context.Context, _ *orchestrator.Orchestrator, _ string) (string, error) {
	return s.list(ctx)
}

func (s *Set) list(ctx context.Context) (string, error) {
	if s.Sessions == nil {
		return "", errors.New("sessions are not stored in this run")
	}
	sums, err := s.Sessions.List(ctx, listLimit)
	if err != nil {
		return "", err
	}
	if len(sums) == 0 {
		return "no sessions yet in this workspace", nil
	}
	return strings.TrimRight(session.FormatList(sums, s.Location), "\n"), nil
}

// resume switches to a stored session by id; ids only, no indexes or aliases.
func (s *Set) resume(ctx context.Context, o *orchestrator.Orchestrator, args string) (string, error) {
	if args == "" {
		text, err := s.list(ctx)
		if err != nil {
			return "", err
		}
		return text + "\nresume one with /resume <session-id>", nil
	}
	if s.Sessions == nil {
		return "", errors.New("sessions are not stored in this run")
	}
	sess, err := s.Sessions.Load(ctx, strings.Fields(args)[0])
	if err != nil {
		return "", err
	}
	if err := o.Resume(ctx, sess); err != nil {
		return "", err
	}
	return fmt.Sprintf("resumed session %s (%d messages): %s", sess.ID, len(sess.Messages), sess.Title), nil
}
