package tools

import (
	"fmt"
	"strings"
)

// hunkError says why hunk n of an Update cannot be applied.
type hunkError struct {
	n      int
	header string
	msg    string
}

func (e *hunkError) Error() string {
	h := fmt.Sprintf("hunk %d", e.n)
	if e.header != "" {
		h += " (" + e.header + ")"
	}
	return h + ": " + e.msg
}

// hunkEdit is a located hunk: content[start:end] becomes repl.
type hunkEdit struct {
	start, end int
	repl       string
}

// applyHunks applies the hunks of an Update to content, in memory. Each
// hunk is searched after the previous one, with the ladder edit uses, and
// must match one place only. notes say which hunks needed a tolerant rung.
func applyHunks(content string, hunks []patchHunk) (string, []string, error) {
	bom, text := splitBOM(content)
	// Hunk lines end with a line break; so does the text while it is
	// searched, and a missing final newline stays missing afterwards.
	eol := "\n"
	if usesCRLF(text) {
		eol = "\r\n"
	}
	added := text != "" && !strings.HasSuffix(text, "\n")
	if added {
		text += eol
	}
	var edits []hunkEdit
	var notes []string
	pos := 0
	for i, h := range hunks {
		e, m, err := locateHunk(text, pos, h)
		if err != nil {
			err.n, err.header = i+1, h.header()
			return "", nil, err
		}
		if m.rung.tolerant {
			note := fmt.Sprintf("hunk %d matched after %s", i+1, m.rung.name)
			if m.reindented {
				note += " (its + lines re-indented to the file's indentation)"
			}
			notes = append(notes, note)
		}
		edits = append(edits, e)
		pos = e.end
	}
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(text[last:e.start])
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(text[last:])
	out := b.String()
	if added {
		out = strings.TrimSuffix(out, eol)
	}
	return bom + out, notes, nil
}

// locateHunk finds where hunk h applies in text, searching from pos.
func locateHunk(text string, pos int, h patchHunk) (hunkEdit, match, *hunkError) {
	from, scopeEnd := pos, 0
	for _, a := range h.anchors {
		at, ok := findAnchor(text, from, a)
		if !ok {
			return hunkEdit{}, match{}, &hunkError{msg: fmt.Sprintf("anchor line %q not found after line %d", a, lineOf(text, from))}
		}
		from, scopeEnd = at, anchorScopeEnd(text, at)
	}
	if len(h.old) == 0 {
		return pureInsert(text, from, h), match{}, nil
	}
	q := matchQuery{old: joinLines(h.old), new: joinLines(h.new), from: from, to: scopeEnd, lines: true, atEOF: h.eof}
	m, merr := findMatch(text, q)
	if merr != nil && merr.count == 0 && scopeEnd > 0 {
		// The anchor's block was guessed too small: look on to the end.
		q.to = 0
		m, merr = findMatch(text, q)
	}
	if merr != nil {
		return hunkEdit{}, match{}, &hunkError{msg: hunkFailure(merr)}
	}
	return hunkEdit{m.start, m.end, m.repl}, m, nil
}

// pureInsert places a hunk that only adds lines: after its anchor line, or
// at the end of the file.
func pureInsert(text string, from int, h patchHunk) hunkEdit {
	at := len(text)
	if len(h.anchors) > 0 && !h.eof {
		if nl := strings.IndexByte(text[from:], '\n'); nl >= 0 {
			at = from + nl + 1
		}
	}
	repl := joinLines(h.new)
	if usesCRLF(text) {
		repl = toCRLF(repl)
	}
	return hunkEdit{at, at, repl}
}

func hunkFailure(e *matchError) string {
	if e.count > 1 {
		after := ""
		if e.rung.tolerant {
			after = " after " + e.rung.name
		}
		return fmt.Sprintf("context matches %d places (lines %s)%s; add context lines or an @@ anchor line to make it unique", e.count, e.lineList(), after)
	}
	msg := "context not found (not even after ignoring line endings, whitespace, indentation and Unicode punctuation)"
	if e.closest != "" {
		msg += "; the most similar part of the file, " + e.closest + "copy the context and - lines from there exactly"
	}
	return msg
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// findAnchor returns the start of the first line at or after from that
// reads like anchor: equal once normalised, else starting with it
// ("@@ func main" for "func main() {").
func findAnchor(text string, from int, anchor string) (int, bool) {
	key := lineKeys([]string{anchor})[0]
	if key == "" {
		return from, true
	}
	for _, prefix := range []bool{false, true} {
		for at := from; at < len(text); {
			end := strings.IndexByte(text[at:], '\n')
			if end < 0 {
				end = len(text) - at
			}
			k := lineKeys([]string{strings.TrimSuffix(text[at:at+end], "\r")})[0]
			if k == key || (prefix && strings.HasPrefix(k, key)) {
				return at, true
			}
			at += end + 1
		}
	}
	return 0, false
}

// anchorScopeEnd guesses where the block opened by the anchor line at
// offset at ends: at the next line indented no deeper that is not a closing
// bracket. A hunk that matches once inside that block is taken even when
// the same lines appear later in the file: narrowing is what anchors are
// for.
func anchorScopeEnd(text string, at int) int {
	nl := strings.IndexByte(text[at:], '\n')
	if nl < 0 {
		return len(text)
	}
	indent := indentWidth(leadingWS(text[at : at+nl]))
	for ls := at + nl + 1; ls < len(text); {
		end := strings.IndexByte(text[ls:], '\n')
		if end < 0 {
			end = len(text) - ls
		}
		line := text[ls : ls+end]
		t := strings.TrimSpace(line)
		if t != "" && indentWidth(leadingWS(line)) <= indent && !closesBlock(t) {
			return ls
		}
		ls += end + 1
	}
	return len(text)
}

func closesBlock(t string) bool {
	return strings.HasPrefix(t, "}") || strings.HasPrefix(t, ")") || strings.HasPrefix(t, "]") ||
		t == "end" || strings.HasPrefix(t, "end ") || strings.HasPrefix(t, "</")
}
