package commands

import (
	"context"
	"errors"
	"strings"

	"github.com/coder-agent/coder/internal/undo"
)

// undoLast restores the files the latest turn changed (write/edit/patch and
// bash), without git; each call walks one turn further back.
func (x *Dispatcher) undoLast(ctx context.Context, _ string) (string, error) {
	if x.deps.Undo == nil {
		return "", errors.New("undo is not recorded in this run")
	}
	st := x.core.Status()
	u, err := undo.UndoLatest(ctx, x.deps.Undo, st.SessionID, st.Workspace)
	if err != nil {
		return "", err
	}
	if len(u.Restored) == 0 && len(u.Problems) == 0 && len(u.Left) == 0 {
		return "nothing to undo", nil
	}
	// The model must not go on from the files as the last turn left them.
	if err := x.core.NoteUndo(ctx, u.Restored); err != nil {
		return "", err
	}
	var b strings.Builder
	if len(u.Restored) > 0 || len(u.Problems) > 0 {
		b.WriteString("undid the last change to:\n")
	}
	for _, p := range u.Restored {
		b.WriteString("  " + p + "\n")
	}
	for _, p := range u.Problems {
		b.WriteString("  could not restore: " + p + "\n")
	}
	if len(u.Left) > 0 {
		b.WriteString("left as they are, changed outside coder's calls since (your editor, another program):\n")
		for _, p := range u.Left {
			b.WriteString("  " + p + "\n")
		}
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

// diff shows the workspace's changes: git's view in a repository, the
// session's snapshots otherwise.
func (x *Dispatcher) diff(ctx context.Context, _ string) (string, error) {
	st := x.core.Status()
	summary, d, ok, err := undo.GitDiff(ctx, st.Workspace)
	if err != nil {
		return "", err
	}
	if !ok {
		if x.deps.Undo == nil {
			return "", errors.New("not a git repository, and no snapshots are recorded in this run")
		}
		if summary, d, err = undo.SessionDiff(ctx, x.deps.Undo, st.SessionID, st.Workspace); err != nil {
			return "", err
		}
	}
	if strings.TrimSpace(summary) == "" && strings.TrimSpace(d) == "" {
		return "no changes", nil
	}
	return strings.TrimRight(summary+"\n\n"+d, "\n"), nil
}
