package markdown

import (
	"strings"

	"github.com/coder-agent/coder/internal/repl/style"
)

// minHang is the least room a hanging column must leave for its text.
const minHang = 12

// HangWrap wraps a line of a command's output (a row of /tools, /tasks,
// /help) at words to cols cells. The continuation rows start under the
// row's last column, the text after its last gap of two or more spaces,
// so a description wraps beside its name instead of under it; where that
// column leaves too little room (less than minHang, or less than a word
// of its text), under an earlier column or the row's indentation.
func HangWrap(st style.Style, line string, cols int) []string {
	if style.Width(line) <= cols {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	at := indent // byte offset where the wrapped text starts
	for _, j := range columns(line, indent) {
		hang := style.Width(line[:j])
		if cols-hang >= minHang && longestWord(line[j:]) <= cols-hang {
			at = j
		}
	}
	hang := style.Width(line[:at])
	return wrapSpans(st, []span{{text: line[at:]}}, cols, []span{{text: line[:at]}}, []span{{text: strings.Repeat(" ", hang)}})
}

// columns are the byte offsets where the text after each gap of two or
// more spaces starts, left to right.
func columns(line string, from int) []int {
	var out []int
	for i := from; i+1 < len(line); i++ {
		if line[i] != ' ' || line[i+1] != ' ' {
			continue
		}
		j := i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) {
			out = append(out, j)
		}
		i = j
	}
	return out
}

func longestWord(s string) int {
	w := 0
	for _, f := range strings.Fields(s) {
		w = max(w, style.Width(f))
	}
	return w
}
