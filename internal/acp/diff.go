package acp

import (
	"path/filepath"
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// hunk is one hunk of a unified diff, as ACP's diff content wants it: the
// old and new text of the region (context included), not +/- lines.
type hunk struct {
	path     string // as in the +++ header, without "b/"
	newStart int    // 1-based first line in the new file; 0 when the file is gone
	old, new []string
	// created: the old side is empty (a new file); oldText is then absent.
	created bool
}

// parseUnified reads the unified diffs the file tools produce (one or more
// files, "--- a/x" / "+++ b/x" headers, "@@ -a,b +c,d @@" hunks).
func parseUnified(d string) []hunk {
	var out []hunk
	var cur *hunk
	path := ""
	oldLeft, newLeft := 0, 0 // lines of the hunk still to come: "--- x" inside one is a removed "-- x"
	for _, line := range strings.Split(d, "\n") {
		inHunk := cur != nil && (oldLeft > 0 || newLeft > 0)
		switch {
		case !inHunk && strings.HasPrefix(line, "--- "):
			cur = nil
		case !inHunk && strings.HasPrefix(line, "+++ "):
			path = strings.TrimPrefix(strings.TrimPrefix(line, "+++ "), "b/")
			cur = nil
		case !inHunk && strings.HasPrefix(line, "@@ "):
			oldStart, oldLen, newStart, newLen := hunkHeader(line)
			out = append(out, hunk{path: path, newStart: newStart, created: oldStart == 0 && oldLen == 0})
			cur, oldLeft, newLeft = &out[len(out)-1], oldLen, newLen
		case cur == nil || line == "" || line[0] == '\\':
		case line[0] == ' ':
			cur.old = append(cur.old, line[1:])
			cur.new = append(cur.new, line[1:])
			oldLeft, newLeft = oldLeft-1, newLeft-1
		case line[0] == '-':
			cur.old = append(cur.old, line[1:])
			oldLeft--
		case line[0] == '+':
			cur.new = append(cur.new, line[1:])
			newLeft--
		}
	}
	return out
}

// hunkHeader parses "@@ -a,b +c,d @@" (a missing length is 1).
func hunkHeader(line string) (oldStart, oldLen, newStart, newLen int) {
	f := strings.Fields(line)
	if len(f) < 3 {
		return 0, 0, 0, 0
	}
	oldStart, oldLen = span(strings.TrimPrefix(f[1], "-"))
	newStart, newLen = span(strings.TrimPrefix(f[2], "+"))
	return
}

func span(s string) (start, n int) {
	a, b, found := strings.Cut(s, ",")
	start, _ = strconv.Atoi(a)
	n = 1
	if found {
		n, _ = strconv.Atoi(b)
	}
	return start, n
}

// diffContent turns a unified diff into ACP diff contents, one per hunk,
// with absolute paths, and the locations of the changes.
func diffContent(d, workspace string) ([]sdk.ToolCallContent, []sdk.ToolCallLocation) {
	var content []sdk.ToolCallContent
	var locs []sdk.ToolCallLocation
	seen := map[string]bool{}
	for _, h := range parseUnified(d) {
		abs := absPath(h.path, workspace)
		newText := joinLines(h.new)
		if h.created {
			content = append(content, sdk.ToolDiffContent(abs, newText))
		} else {
			content = append(content, sdk.ToolDiffContent(abs, newText, joinLines(h.old)))
		}
		key := abs + ":" + strconv.Itoa(h.newStart)
		if seen[key] {
			continue
		}
		seen[key] = true
		loc := sdk.ToolCallLocation{Path: abs}
		if h.newStart > 0 {
			loc.Line = sdk.Ptr(h.newStart)
		}
		locs = append(locs, loc)
	}
	return content, locs
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// absPath makes a workspace-relative (slash-separated) path absolute.
func absPath(p, workspace string) string {
	if filepath.IsAbs(p) || workspace == "" {
		return filepath.Clean(p)
	}
	return filepath.Join(workspace, filepath.FromSlash(p))
}
