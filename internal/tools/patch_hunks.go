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

// fileEnds is what the hunks of an Update ask of the file's final newline
// and BOM; both stay as they are unless a hunk says otherwise.
type fileEnds struct {
	newline, bom bool
	notes        []string
	swapped      bool // a hunk showed the model swapping tabs and spaces
}

// applyHunks applies the hunks of an Update to content, in memory. Each
// hunk is searched after the previous one, with the ladder edit uses, and
// must match one place only. notes say which hunks needed a tolerant rung
// and what changed at the file's ends.
func applyHunks(content string, hunks []patchHunk) (string, []string, error) {
	bom, text := splitBOM(content)
	// Hunk lines end with a line break; so does the text while it is
	// searched, and a missing final newline stays missing afterwards.
	eol := fileEOL(text)
	lacked := text != "" && !endsWithEOL(text)
	if lacked {
		text += eol
	}
	ends := fileEnds{newline: !lacked, bom: bom != ""}
	cache := &textCache{}
	edits, notes, err := locateHunks(text, hunks, cache, false, &ends)
	if err == nil && ends.swapped {
		// The model swapped tabs and spaces in one hunk: hunks that matched
		// with nothing to learn from carry the same slip in their + lines.
		ends = fileEnds{newline: !lacked, bom: bom != ""}
		edits, notes, err = locateHunks(text, hunks, cache, true, &ends)
	}
	if err != nil {
		return "", nil, err
	}
	out := spliceEdits(text, edits)
	out = setFinalNewline(out, ends.newline, eol)
	if ends.newline == lacked && out != "" {
		ends.notes = append(ends.notes, endNote("final newline", ends.newline))
	}
	if ends.bom != (bom != "") {
		ends.notes = append(ends.notes, endNote("UTF-8 BOM", ends.bom))
	}
	if ends.bom {
		out = utf8BOM + out
	}
	return out, append(notes, ends.notes...), nil
}

// locateHunks places every hunk, each after the previous one.
func locateHunks(text string, hunks []patchHunk, cache *textCache, swapChars bool, ends *fileEnds) ([]hunkEdit, []string, error) {
	var edits []hunkEdit
	var notes []string
	pos := 0
	for i, h := range hunks {
		h, wantBOM, changeBOM := hunkBOM(h)
		e, m, err := locateHunk(text, pos, h, cache, swapChars)
		if err != nil && h.bareTail > 0 {
			if e2, m2, err2 := locateHunk(text, pos, h.withoutBareTail(), cache, swapChars); err2 == nil {
				e, m, err = e2, m2, nil
			}
		}
		if err != nil {
			err.n, err.header = i+1, h.header()
			return nil, nil, err
		}
		if m.rung.tolerant {
			note := fmt.Sprintf("hunk %d matched after %s", i+1, m.rung.name)
			if m.reindented {
				note += " (its + lines re-indented to the file's indentation)"
			}
			notes = append(notes, note)
		}
		ends.ask(h, e, wantBOM, changeBOM)
		ends.swapped = ends.swapped || m.swapped
		edits = append(edits, e)
		pos = e.end
	}
	return edits, notes, nil
}

// ask records what hunk h, placed at e, says about the file's ends: a
// "\ No newline at end of file" marker, or a BOM on its first line.
func (f *fileEnds) ask(h patchHunk, e hunkEdit, wantBOM, changeBOM bool) {
	switch oldNo, newNo := h.noFinalNewline(); {
	case newNo:
		f.newline = false
	case oldNo:
		f.newline = true
	}
	if changeBOM && e.start == 0 {
		f.bom = wantBOM
	}
}

// hunkBOM takes a UTF-8 BOM off the first old and new lines of h (the
// model copied the file's first line with it, or means to add or remove
// it) and says whether the hunk asks for one, and to change it.
func hunkBOM(h patchHunk) (patchHunk, bool, bool) {
	h.lines = append([]hunkLine(nil), h.lines...)
	first := func(skip byte) int {
		for k, l := range h.lines {
			if l.op != skip {
				return k
			}
		}
		return -1
	}
	io, in := first('+'), first('-')
	has := func(k int) bool { return k >= 0 && strings.HasPrefix(h.lines[k].text, utf8BOM) }
	oldBOM, newBOM := has(io), has(in)
	for _, k := range []int{io, in} {
		if has(k) {
			h.lines[k].text = h.lines[k].text[len(utf8BOM):]
		}
	}
	// Like edit: only a first line that differs by the BOM alone changes it.
	change := oldBOM != newBOM && io >= 0 && in >= 0 && h.lines[io].text == h.lines[in].text
	return h, newBOM, change
}

// endNote words a change of the final newline or the BOM.
func endNote(what string, added bool) string {
	if added {
		return "added the " + what
	}
	return "removed the " + what
}

func spliceEdits(text string, edits []hunkEdit) string {
	var b strings.Builder
	last := 0
	for _, e := range edits {
		b.WriteString(text[last:e.start])
		b.WriteString(e.repl)
		last = e.end
	}
	b.WriteString(text[last:])
	return b.String()
}

// locateHunk finds where hunk h applies in text, searching from pos.
func locateHunk(text string, pos int, h patchHunk, cache *textCache, swapChars bool) (hunkEdit, match, *hunkError) {
	chain, herr := anchorLines(text, h.anchors, cache)
	if herr != nil {
		return hunkEdit{}, match{}, herr
	}
	old := h.old()
	if len(old) == 0 {
		at := len(text)
		if len(chain) > 0 && !h.eof {
			var err *hunkError
			if at, err = insertAfterAnchor(text, pos, chain, h.anchors[len(h.anchors)-1], cache.lines(text)); err != nil {
				return hunkEdit{}, match{}, err
			}
		}
		return hunkEdit{at, at, withEOL(joinLines(h.new()), lineBreakAt(text, at))}, match{}, nil
	}
	q := matchQuery{old: joinLines(old), new: joinLines(h.new()), from: pos, lines: true, atEOF: h.eof, script: h.script(), cache: cache, swapChars: swapChars}
	var m match
	var merr *matchError
	if len(chain) > 0 {
		m, merr = findBelowAnchors(text, q, chain)
	} else {
		m, merr = findMatch(text, q)
	}
	if merr != nil {
		return hunkEdit{}, match{}, &hunkError{msg: hunkFailure(text, q, merr, len(chain) > 0)}
	}
	return hunkEdit{m.start, m.end, m.repl}, m, nil
}

// withEOL writes the LF line breaks of s as eol.
func withEOL(s, eol string) string {
	if eol == "\n" {
		return s
	}
	return toCRLF(s)
}

// hunkFailure explains why a hunk has no unique place, and where the model
// can look.
func hunkFailure(text string, q matchQuery, e *matchError, anchored bool) string {
	below, fix := "", "an @@ anchor line"
	if anchored {
		below, fix = " below its @@ line", "a more specific @@ line"
	}
	switch {
	case e.unfaithful != "":
		return fmt.Sprintf("context matches line %d %s, but nothing was changed: %s; copy the context and - lines exactly from the file", e.lines[0], e.rung.after(), e.unfaithful)
	case e.count > 1:
		after := ""
		if e.rung.tolerant {
			after = " after " + e.rung.name
		}
		return fmt.Sprintf("context matches %d places%s (lines %s)%s; add context lines or %s to make it unique", e.count, below, e.lineList(), after, fix)
	}
	if anchored {
		if m, merr := findMatch(text, q); merr == nil || merr.count > 1 {
			lines := []int{lineOf(text, m.start)}
			if merr != nil {
				lines = merr.lines
			}
			return fmt.Sprintf("context found at line %s, but not under its @@ line: an @@ line names the line the hunk is under, such as the function it is in (not an earlier one)", joinInts(lines))
		}
	}
	if q.from > 0 {
		early := q
		early.from, early.to = 0, q.from
		if m, merr := findMatch(text, early); merr == nil {
			return fmt.Sprintf("context found at line %d, before the previous hunk: hunks must follow the file's order", lineOf(text, m.start))
		}
	}
	msg := "context not found (not even after ignoring line endings, whitespace, indentation and Unicode punctuation)"
	if e.closest != "" {
		msg += "; the most similar part of the file, " + e.closest + "copy the context and - lines from there exactly"
	}
	return msg
}

func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

func joinLines(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}
