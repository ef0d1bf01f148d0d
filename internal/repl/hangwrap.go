package repl

import "strings"

// hangWrap wraps a line of a command's output (a row of /tools, /tasks,
// /help) at words to cols cells. The continuation rows start under the
// row's last column, the text after its last gap of two or more spaces,
// so a description wraps beside its name instead of under it; where that
// column leaves too little room, under the row's indentation.
func hangWrap(st Style, line string, cols int) []string {
	if width(line) <= cols {
		return []string{line}
	}
	indent := len(line) - len(strings.TrimLeft(line, " "))
	at := indent // byte offset where the wrapped text starts
	for i := indent; i+1 < len(line); i++ {
		if line[i] != ' ' || line[i+1] != ' ' {
			continue
		}
		j := i
		for j < len(line) && line[j] == ' ' {
			j++
		}
		if j < len(line) && width(line[:j]) <= cols*2/3 {
			at = j
		}
		i = j
	}
	hang := width(line[:at])
	if cols-hang < 12 {
		at, hang = indent, indent
	}
	return wrapSpans(st, []span{{text: line[at:]}}, cols, []span{{text: line[:at]}}, []span{{text: strings.Repeat(" ", hang)}})
}
