package tools

import (
	"fmt"
	"io"
	"os"
	"strings"
)

// formatMatches renders matches (sorted by path and line) as `path:line:text`
// lines. With context > 0 the surrounding lines are read from the files and
// shown as `path-line-text`; `--` separates groups that do not touch.
func formatMatches(ws *Workspace, ms []grepMatch, context int) string {
	var b strings.Builder
	if context == 0 {
		for _, m := range ms {
			fmt.Fprintf(&b, "%s:%d:%s\n", ws.Rel(m.abs), m.line, m.text)
		}
		return b.String()
	}
	for i, group := range groupByFile(ms) {
		if i > 0 {
			b.WriteString("--\n")
		}
		writeWithContext(&b, ws.Rel(group[0].abs), group, fileLines(ws, group[0].abs), context)
	}
	return b.String()
}

func writeWithContext(b *strings.Builder, rel string, group []grepMatch, lines []string, context int) {
	matched := make(map[int]string, len(group))
	for _, m := range group {
		matched[m.line] = m.text
	}
	shownTo := 0
	for _, m := range group {
		from, to := max(1, m.line-context), max(m.line, min(len(lines), m.line+context))
		if from > shownTo+1 && shownTo > 0 {
			b.WriteString("--\n")
		}
		for n := max(from, shownTo+1); n <= to; n++ {
			if text, ok := matched[n]; ok {
				fmt.Fprintf(b, "%s:%d:%s\n", rel, n, text)
			} else if n <= len(lines) {
				fmt.Fprintf(b, "%s-%d-%s\n", rel, n, matchText([]byte(lines[n-1])))
			}
		}
		shownTo = max(shownTo, to)
	}
}

func groupByFile(ms []grepMatch) [][]grepMatch {
	var groups [][]grepMatch
	for i, m := range ms {
		if i == 0 || m.abs != ms[i-1].abs {
			groups = append(groups, nil)
		}
		groups[len(groups)-1] = append(groups[len(groups)-1], m)
	}
	return groups
}

// fileLines is the file's lines without line endings; nil if unreadable.
func fileLines(ws *Workspace, path string) []string {
	fd, err := ws.openRead(path)
	if err != nil {
		return nil
	}
	f := os.NewFile(uintptr(fd), path)
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil
	}
	s := strings.TrimSuffix(string(data), "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}
