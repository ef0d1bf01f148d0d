package edit

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
	swapped      indentSwap // what the hunks showed the model swapping: tabs and spaces
}

// Apply applies an Update's hunks to content, in memory: the new content,
// and notes saying which hunks needed a tolerant rung and what changed at
// the file's ends. A refusal names the hunk.
func (o FileOp) Apply(content string) (string, []string, error) {
	return applyHunks(content, o.hunks)
}

// applyHunks applies the hunks of an Update to content, in memory. Each
// hunk is searched with the ladder edit uses, and the hunks are placed
// together (placeHunks): one place each, in the file's order. notes say
// which hunks needed a tolerant rung and what changed at the file's ends.
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
	placed, perr := placeHunks(text, hunks, cache)
	if perr != nil {
		return "", nil, perr
	}
	edits, notes, err := hunkEdits(text, placed, 0, &ends)
	if err == nil && ends.swapped != 0 {
		// The model swapped tabs and spaces in one hunk: hunks that matched
		// with nothing to learn from carry the same slip in their + lines.
		seen := ends.swapped
		ends = fileEnds{newline: !lacked, bom: bom != ""}
		edits, notes, err = hunkEdits(text, placed, seen, &ends)
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

// hunkEdits builds the edits of the placed hunks.
func hunkEdits(text string, placed []placedHunk, swapChars indentSwap, ends *fileEnds) ([]hunkEdit, []string, error) {
	var edits []hunkEdit
	var notes []string
	for i, ph := range placed {
		h := ph.places.form.h
		e := hunkEdit{ph.at.start, ph.at.end, ""}
		var m match
		if len(h.old()) == 0 {
			e.repl = withEOL(joinLines(h.new()), lineBreakAt(text, e.start))
		} else {
			q := ph.places.form.q
			q.swapChars = swapChars
			var merr *MatchError
			if m, merr = buildMatch(text, ph.at, ph.places.hits, q); merr != nil {
				return nil, nil, &hunkError{n: i + 1, header: h.header(), msg: unfaithfulFailure(merr)}
			}
			e.repl = m.repl
		}
		if m.rung.tolerant {
			note := fmt.Sprintf("hunk %d matched after %s", i+1, m.rung.name)
			if m.reindented {
				note += " (its + lines re-indented to the file's indentation)"
			}
			notes = append(notes, note)
		}
		if ph.spot.missing != "" {
			notes = append(notes, fmt.Sprintf("hunk %d: its @@ line %q names no line of the file; placed by its context alone", i+1, ph.spot.missing))
		}
		ends.ask(h, e, ph.spot.wantBOM, ph.spot.changeBOM)
		ends.swapped |= m.swapped
		edits = append(edits, e)
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

// withEOL writes the LF line breaks of s as eol.
func withEOL(s, eol string) string {
	if eol == "\n" {
		return s
	}
	return toCRLF(s)
}

// unfaithfulFailure explains why the hunk placed at a unique place was
// not applied there.
func unfaithfulFailure(e *MatchError) string {
	return fmt.Sprintf("context matches line %d %s, but nothing was changed: %s; copy the context and - lines exactly from the file", e.lines[0], e.rung.after(), e.unfaithful)
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
