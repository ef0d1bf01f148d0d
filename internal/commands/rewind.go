package commands

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/undo"
)

const rewindUsage = "/rewind [N] [both|code|conversation] [--overwrite|--keep]"

// rewindArgs is a /rewind command line.
type rewindArgs struct {
	number          int // 0: list the turns
	code, convo     bool
	overwrite, keep bool
}

func parseRewind(args string) (rewindArgs, error) {
	a := rewindArgs{code: true, convo: true}
	for _, f := range strings.Fields(args) {
		switch f {
		case "both":
			a.code, a.convo = true, true
		case "code", "files":
			a.code, a.convo = true, false
		case "conversation", "chat":
			a.code, a.convo = false, true
		case "--overwrite":
			a.overwrite = true
		case "--keep":
			a.keep = true
		default:
			n, err := strconv.Atoi(f)
			if err != nil || n < 1 || a.number != 0 {
				return a, fmt.Errorf("usage: %s", rewindUsage)
			}
			a.number = n
		}
	}
	if a.overwrite && a.keep {
		return a, errors.New("--overwrite and --keep say opposite things; pick one")
	}
	return a, nil
}

// rewind is /rewind: with no turn, the turns it can go back to; with one,
// the files, the conversation or both (the default) as they were before
// that turn. Files a person changed since coder last did are named and
// nothing happens until the person says: --overwrite puts them back too,
// --keep leaves them and rewinds the rest.
func (x *Dispatcher) rewind(ctx context.Context, args string) (string, error) {
	a, err := parseRewind(args)
	if err != nil {
		return "", err
	}
	turns := x.core.Turns()
	if a.number == 0 {
		return x.listTurns(ctx, turns), nil
	}
	if a.number > len(turns) {
		return "", fmt.Errorf("no turn %d: the history has %d (run /rewind to list them)", a.number, len(turns))
	}
	t := turns[a.number-1]
	st := x.core.Status()
	var plan *undo.RewindPlan
	if a.code {
		if x.deps.Undo == nil {
			return "", errors.New("file changes are not recorded in this run; /rewind N conversation rewinds the conversation only")
		}
		if plan, err = undo.PlanRewind(ctx, x.deps.Undo, st.SessionID, st.Workspace, t.Turn); err != nil {
			return "", err
		}
		if len(plan.Changed) > 0 && !a.overwrite && !a.keep {
			return changedReport(a, plan.Changed), nil
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "rewound to before turn %d (%q):\n", t.Number, session.TitleFrom(t.Input))
	var restored []string
	if plan != nil {
		var left, problems []string
		restored, left, problems, err = undo.ApplyRewind(ctx, x.deps.Undo, plan, st.Workspace, a.overwrite)
		if err != nil {
			return "", err
		}
		writeList(&b, "files put back", restored)
		writeList(&b, "left as they are (changed since coder last wrote them)", left)
		writeList(&b, "could not restore", problems)
		if len(restored)+len(left)+len(problems) == 0 {
			b.WriteString("  files: none changed since\n")
		}
		if plan.Incomplete {
			b.WriteString("  snapshots are kept for the last " + strconv.Itoa(undo.KeepTurns) + " turns only: changes from older turns may remain\n")
		}
	}
	if a.convo {
		before := st.Messages
		if _, err := x.core.RewindConversation(ctx, t.Number); err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "  conversation: %d messages removed; it goes on from before that request\n", before-t.Index)
	} else if err := x.core.NoteRewind(ctx, t, restored); err != nil {
		return "", err
	}
	return strings.TrimRight(b.String(), "\n"), nil
}

func writeList(b *strings.Builder, label string, items []string) {
	if len(items) > 0 {
		fmt.Fprintf(b, "  %s: %s\n", label, strings.Join(items, ", "))
	}
}

func changedReport(a rewindArgs, changed []string) string {
	scope := "both"
	if !a.convo {
		scope = "code"
	}
	cmd := fmt.Sprintf("/rewind %d %s", a.number, scope)
	return fmt.Sprintf("changed since coder last wrote them: %s\nnothing was rewound yet:\n  %s --overwrite   puts them back too\n  %s --keep        leaves them and rewinds the rest",
		strings.Join(changed, ", "), cmd, cmd)
}

// listTurns is the turns /rewind can go back to, those whose own changes
// to files are recorded marked.
func (x *Dispatcher) listTurns(ctx context.Context, turns []orchestrator.TurnInfo) string {
	if len(turns) == 0 {
		return "no turns to rewind in this session"
	}
	var stored []int
	if x.deps.Undo != nil {
		stored, _ = x.deps.Undo.UndoTurns(ctx, x.core.Status().SessionID)
	}
	var b strings.Builder
	b.WriteString("turns of this session; /rewind N puts the files and the conversation back as they were before turn N:\n")
	for _, t := range turns {
		fmt.Fprintf(&b, "  %d. %s", t.Number, session.TitleFrom(t.Input))
		if slices.Contains(stored, t.Turn) {
			b.WriteString("  (changed files)")
		}
		b.WriteString("\n")
	}
	b.WriteString("code or conversation only: /rewind N code, /rewind N conversation")
	return b.String()
}

// RewindTurns lists the turns /rewind can go back to (the REPL's picker).
func (x *Dispatcher) RewindTurns() []orchestrator.TurnInfo { return x.core.Turns() }

// RewindChanged names the files a rewind of the code to before turn
// number would overwrite although someone changed them since coder last
// did (the picker asks before it does).
func (x *Dispatcher) RewindChanged(ctx context.Context, number int) ([]string, error) {
	turns := x.core.Turns()
	if x.deps.Undo == nil || number < 1 || number > len(turns) {
		return nil, nil
	}
	st := x.core.Status()
	plan, err := undo.PlanRewind(ctx, x.deps.Undo, st.SessionID, st.Workspace, turns[number-1].Turn)
	if err != nil {
		return nil, err
	}
	return plan.Changed, nil
}
