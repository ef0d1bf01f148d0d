package undo

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"

	"github.com/coder-agent/coder/internal/session"
)

// SessionDiff is /diff without git: for each path the session captured, its
// oldest snapshot (its state before the session first changed it) against
// the file now. See Diff for the result.
func SessionDiff(ctx context.Context, store Loader, sessionID, workspace string) (summary, diff string, err error) {
	turns, err := store.UndoTurns(ctx, sessionID)
	if err != nil {
		return "", "", err
	}
	oldest := map[string]session.UndoEntry{}
	for _, turn := range slices.Backward(turns) { // oldest turn first
		es, err := store.LoadUndo(ctx, sessionID, turn)
		if err != nil {
			return "", "", err
		}
		for _, e := range es {
			if _, ok := oldest[e.Path]; !ok {
				oldest[e.Path] = e
			}
		}
	}
	entries := make([]session.UndoEntry, 0, len(oldest))
	for _, e := range oldest {
		entries = append(entries, e)
	}
	return Diff(ctx, workspace, entries)
}

// Diff compares each entry (the state of a path at some earlier point) with
// the path now. summary is one line, e.g.
// "3 files changed: M a.go (+3 -1), A new.txt, D old.txt", or "no changes";
// diff holds the unified diffs, git style, paths relative to workspace.
// Directories are left out: their files speak for them.
func Diff(ctx context.Context, workspace string, entries []session.UndoEntry) (summary, diff string, err error) {
	items, diff, err := changes(ctx, workspace, entries)
	if err != nil {
		return "", "", err
	}
	return summarize(items), diff, nil
}

// Changes lists what changed in each path since entries were captured, one
// item per changed path as Diff's summary names them ("M a.go (+3 -1)",
// "A new.txt", "D old.txt"), in path order.
func Changes(ctx context.Context, workspace string, entries []session.UndoEntry) ([]string, error) {
	items, _, err := changes(ctx, workspace, entries)
	return items, err
}

func changes(ctx context.Context, workspace string, entries []session.UndoEntry) (items []string, diff string, err error) {
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b session.UndoEntry) int { return strings.Compare(a.Path, b.Path) })
	var out strings.Builder
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return nil, "", err
		}
		if e.Mode.IsDir() && e.Skipped == "" {
			continue
		}
		rel, err := filepath.Rel(workspace, e.Path)
		if err != nil {
			rel = e.Path
		}
		rel = filepath.ToSlash(rel)
		if item, body := diffOne(rel, e, readEntry(e.Path, MaxCaptureSize)); item != "" {
			items = append(items, item)
			out.WriteString(body)
		}
	}
	return items, out.String(), nil
}

func summarize(items []string) string {
	switch len(items) {
	case 0:
		return "no changes"
	case 1:
		return "1 file changed: " + items[0]
	}
	return fmt.Sprintf("%d files changed: %s", len(items), strings.Join(items, ", "))
}

// diffOne compares then with now for the path rel; "" when they are the same.
func diffOne(rel string, then, now session.UndoEntry) (item, body string) {
	header := fmt.Sprintf("diff --git a/%s b/%s\n", rel, rel)
	switch {
	case !then.Existed && !now.Existed:
		return "", ""
	case !then.Existed:
		return "A " + rel, header + textDiff("/dev/null", "b/"+rel, nil, now)
	case !now.Existed:
		return "D " + rel, header + textDiff("a/"+rel, "/dev/null", &then, session.UndoEntry{})
	case then.Skipped != "":
		return "M " + rel + " (earlier content not captured)", ""
	case now.Skipped != "":
		return "M " + rel + " (" + now.Skipped + ")", ""
	}
	sameBytes := bytes.Equal(then.Content, now.Content)
	if sameBytes && then.Mode == now.Mode {
		return "", ""
	}
	item = "M " + rel
	if then.Mode != now.Mode {
		item += fmt.Sprintf(" (mode %04o -> %04o)", then.Mode.Perm(), now.Mode.Perm())
		header += fmt.Sprintf("old mode %v\nnew mode %v\n", then.Mode, now.Mode)
	}
	if sameBytes {
		return item, header
	}
	d := textDiff("a/"+rel, "b/"+rel, &then, now)
	if added, removed := diffStat(d); added+removed > 0 {
		item += fmt.Sprintf(" (+%d -%d)", added, removed)
	}
	return item, header + d
}

// textDiff is the unified diff between two contents (then nil: none), or a
// one-line note for binary content.
func textDiff(from, to string, then *session.UndoEntry, now session.UndoEntry) string {
	var before []byte
	if then != nil {
		before = then.Content
	}
	if isBinary(before) || isBinary(now.Content) {
		return fmt.Sprintf("Binary files %s and %s differ\n", from, to)
	}
	edits := udiff.Lines(string(before), string(now.Content))
	d, err := udiff.ToUnified(from, to, string(before), edits, udiff.DefaultContextLines)
	if err != nil {
		return fmt.Sprintf("(no diff: %v)\n", err)
	}
	return d
}

// isBinary uses git's test: a NUL byte in the first 8000 bytes.
func isBinary(b []byte) bool {
	return bytes.IndexByte(b[:min(len(b), 8000)], 0) >= 0
}

// diffStat counts the added and removed lines of a unified diff.
func diffStat(d string) (added, removed int) {
	for i, l := range strings.Split(d, "\n") {
		switch {
		case i < 2: // the ---/+++ headers
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}
