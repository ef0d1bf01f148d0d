package edit

import (
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Turning a real commit into the calls a model makes, with the slips models
// make. A noise is applied per line of the model's call texts: copied says
// the model copied the line from the file (context and removed lines, and
// the unchanged lines of an edit's new_string); lines it wrote itself
// (added lines) are clean, except for slips of style that touch everything
// the model writes (tabs for spaces, a block indented one level off).

type callLine struct {
	text   string
	copied bool
}

// fileStyle is how the file being edited indents.
type fileStyle struct {
	tabs bool
	unit int
}

func styleOf(content string) fileStyle {
	fi := fileIndentOf(content)
	if fi.unit <= 0 || fi.tabs {
		fi.unit = tabWidth
	}
	return fileStyle{tabs: fi.tabs, unit: fi.unit}
}

func (s fileStyle) indentUnit() string {
	if s.tabs {
		return "\t"
	}
	return strings.Repeat(" ", s.unit)
}

// noise is one kind of slip.
type noise struct {
	name string
	line func(l string, copied bool, s fileStyle) string
	// uniform: the slip applies to a call (a hunk of a patch) only if it
	// can apply to every line of it, as a block indented one level too
	// shallow can only be where every line has that level.
	uniform bool
	// bareBlank: the patch writes blank context lines without their space.
	bareBlank bool
	// anchors rewrites the @@ lines of a file's hunks (patch only).
	anchors   func(headers []string) []string
	patchOnly bool
}

// apply writes the lines of one call (old and new texts) with the slip.
func (n noise) apply(old, new []callLine, s fileStyle) ([]string, []string) {
	f := n.line
	if f == nil || (n.uniform && !appliesToAll(f, old, new, s)) {
		f = func(l string, _ bool, _ fileStyle) string { return l }
	}
	write := func(ls []callLine) []string {
		out := make([]string, len(ls))
		for i, l := range ls {
			out[i] = f(l.text, l.copied, s)
		}
		return out
	}
	return write(old), write(new)
}

// appliesToAll reports whether f changes every non-empty line.
func appliesToAll(f func(string, bool, fileStyle) string, old, new []callLine, s fileStyle) bool {
	for _, l := range append(append([]callLine(nil), old...), new...) {
		if l.text != "" && f(l.text, l.copied, s) == l.text {
			return false
		}
	}
	return true
}

func curlyQuotes(l string, copied bool, _ fileStyle) string {
	if !copied {
		return l
	}
	var b strings.Builder
	quotes, k := []string{"\u201c", "\u201d"}, 0
	for _, r := range l {
		switch r {
		case '"':
			b.WriteString(quotes[k%2])
			k++
		case '\'':
			b.WriteRune('\u2019')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func dropTrailing(l string, copied bool, _ fileStyle) string {
	if !copied {
		return l
	}
	return strings.TrimRight(l, " \t")
}

// swapTabs writes spaces for a tab-indented file's tabs, or tabs for a
// space-indented file's spaces, tabWidth to a tab.
func swapTabs(l string, _ bool, s fileStyle) string {
	ind := leadingWS(l)
	if s.tabs {
		return strings.ReplaceAll(ind, "\t", strings.Repeat(" ", tabWidth)) + l[len(ind):]
	}
	w := indentWidth(ind)
	return strings.Repeat("\t", w/tabWidth) + strings.Repeat(" ", w%tabWidth) + l[len(ind):]
}

func shiftRight(l string, _ bool, s fileStyle) string {
	if l == "" {
		return l
	}
	bom, rest := splitBOM(l) // a BOM stays first
	return bom + s.indentUnit() + rest
}

func shiftLeft(l string, _ bool, s fileStyle) string {
	return strings.TrimPrefix(l, s.indentUnit())
}

func compose(fs ...func(string, bool, fileStyle) string) func(string, bool, fileStyle) string {
	return func(l string, copied bool, s fileStyle) string {
		for _, f := range fs {
			l = f(l, copied, s)
		}
		return l
	}
}

// historyNoises are the variants measured besides the clean calls.
var historyNoises = []noise{
	{name: "curly quotes", line: curlyQuotes},
	{name: "trailing ws dropped", line: dropTrailing},
	{name: "tabs<->spaces", line: swapTabs},
	{name: "indented +1 level", line: shiftRight},
	{name: "indented -1 level", line: shiftLeft, uniform: true},
	{name: "bare blank context", bareBlank: true, patchOnly: true},
	{name: "one anchor repeated", patchOnly: true, anchors: func(h []string) []string {
		out := make([]string, len(h))
		for i := range h {
			out[i] = h[0]
		}
		return out
	}},
	{name: "no anchors", patchOnly: true, anchors: func(h []string) []string { return make([]string, len(h)) }},
	{name: "all slips at once", line: compose(curlyQuotes, dropTrailing, swapTabs), bareBlank: true},
}

// erases reports whether the noise wipes out what the commit does, so the
// call cannot say it and is not counted: a removed and an added line that
// differ read the same once noised (the commit only changed what the slip
// loses, like trailing whitespace), or the slip changes the indentation of
// added lines while no line the model copied shows it (nothing then tells
// the slip from the model's intent), or it hides an added line's style
// (hidesStyle; tabsAround says what the lines around the call use).
func (n noise) erases(old, new []callLine, s fileStyle, tabsAround bool) bool {
	if n.line == nil {
		return false
	}
	no, nn := n.apply(old, new, s)
	return wipesChange(old, new, no, nn) || hidesSlip(old, new, no, nn) || n.hidesStyle(new, s, tabsAround)
}

// hidesStyle: a line the commit adds indented against the file's style (a
// tab in a file indented with spaces), or against the style of the lines
// around it (spaces in a code sample of tabs; tabsAround says which they
// use), reads, once noised, like the same line indented in that style and
// noised. Where the call shows the slip, the tools write an added line in
// the style of the lines around it, and nothing in the call says this one
// was meant otherwise.
func (n noise) hidesStyle(new []callLine, s fileStyle, tabsAround bool) bool {
	if n.line == nil {
		return false
	}
	for _, l := range new {
		ind := leadingWS(l.text)
		if l.copied || ind == "" || isBlank(l.text) {
			continue
		}
		for _, tabs := range []bool{s.tabs, tabsAround} {
			canon := renderIndent(indentWidth(ind), tabs) + l.text[len(ind):]
			if canon != l.text && n.line(canon, false, s) == n.line(l.text, false, s) {
				return true
			}
		}
	}
	return false
}

// tabsAround says whether most of the indented lines from 40 before line
// from of content (counted from 0) to 40 after line to start with a tab:
// the style the tools give a line added there once the call shows the
// model swapping tabs and spaces.
func tabsAround(content string, from, to int) bool {
	lines := splitLines(normaliseEOL(content))
	hi := min(max(to, 0)+40, len(lines))
	tabbed, spaced := indentStarts(lines[min(max(from-40, 0), hi):hi])
	return tabbed > spaced
}

// wipesChange: a line the call copies (context, or removed) and a line it
// adds that differ read the same once noised (which line is the copy is
// then no longer told); or a line the call rewrites (as the tools pair
// lines) changes its trailing whitespace while the noised lines end alike:
// a rewritten line keeps the file's trailing whitespace unless the model's
// own texts change it, and a slip that drops it from the copied line
// leaves the call silent on it; or a line of whitespace the call adds
// reads empty once noised (an empty line the model writes is written
// empty). old and new are the lines of one call (an edit, or a hunk), no
// and nn the same noised.
func wipesChange(old, new []callLine, no, nn []string) bool {
	for j, l := range new {
		if !l.copied && strings.TrimSuffix(l.text, "\r") != "" && isBlank(l.text) && strings.TrimSuffix(nn[j], "\r") == "" {
			return true
		}
	}
	ot, nt := texts(old), texts(new)
	var added []int
	trail := func(l string) string { return cutLine(l).trail }
	for _, d := range lcs.DiffLines(ot, nt) {
		for j := d.ReplStart; j < d.ReplEnd; j++ {
			added = append(added, j)
		}
		for j, i := range pairLines(ot[d.Start:d.End], nt[d.ReplStart:d.ReplEnd]) {
			i, j = d.Start+i, d.ReplStart+j
			if trail(ot[i]) != trail(nt[j]) && trail(no[i]) == trail(nn[j]) {
				return true
			}
		}
	}
	for i := range ot {
		for _, j := range added {
			if ot[i] != nt[j] && no[i] == nn[j] {
				return true
			}
		}
	}
	return false
}

// hidesSlip: all the lines of one call (an edit, or the hunks of one file
// in a patch), and the same noised.
func hidesSlip(old, new []callLine, no, nn []string) bool {
	evidence, slipped := false, false
	for i, l := range old {
		evidence = evidence || (!isBlank(l.text) && leadingWS(no[i]) != leadingWS(l.text))
	}
	for j, l := range new {
		slipped = slipped || (!l.copied && leadingWS(nn[j]) != leadingWS(l.text))
	}
	return slipped && !evidence
}

func texts(ls []callLine) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = l.text
	}
	return out
}

// editCall is one edit a model makes; nl asks to add (+1) or remove (-1)
// the final newline by the readable way: new_string is old_string plus a
// line break, or the reverse.
type editCall struct {
	old, new []callLine
	nl       int
}

// historyEdits turns the hunks of one file into the edits a careful model
// makes: each hunk's lines, with more context until old_string is unique
// in the file as it is by then.
func historyEdits(before string, hunks []diffHunk) ([]editCall, bool) {
	cur := splitLines(normaliseEOL(before))
	var calls []editCall
	delta := 0
	for _, h := range hunks {
		old, nw := sideOf(h.lines, '+'), sideOf(h.lines, '-')
		start := h.oldStart - 1 + delta
		if h.oldCount == 0 {
			start = h.oldStart + delta
		}
		if start < 0 || start+len(old) > len(cur) || strings.Join(cur[start:start+len(old)], "\n") != strings.Join(trimCR(old), "\n") {
			return nil, false
		}
		lo, hi := start, start+len(old)
		for (hi == lo || countOverlapping(strings.Join(cur, "\n")+"\n", strings.Join(cur[lo:hi], "\n")) != 1) && (lo > 0 || hi < len(cur)) {
			lo, hi = max(lo-1, 0), min(hi+1, len(cur))
		}
		c := editCall{}
		for _, l := range cur[lo:hi] {
			c.old = append(c.old, callLine{l, true})
		}
		for _, l := range cur[lo:start] {
			c.new = append(c.new, callLine{l, true})
		}
		for _, l := range h.lines {
			if l.op != '-' {
				c.new = append(c.new, callLine{strings.TrimSuffix(l.text, "\r"), l.op == ' '})
			}
		}
		for _, l := range cur[start+len(old) : hi] {
			c.new = append(c.new, callLine{l, true})
		}
		if strings.Join(texts(c.old), "\n") != strings.Join(texts(c.new), "\n") {
			calls = append(calls, c) // else the hunk only changes the final newline
		}
		cur = append(append(append([]string{}, cur[:start]...), trimCR(nw)...), cur[start+len(old):]...)
		delta += len(nw) - len(old)
		if nl := finalNewlineChange(h); nl != 0 {
			calls = append(calls, lastLinesCall(cur, nl))
		}
	}
	return calls, true
}

// finalNewlineChange is +1 when the hunk adds the file's final newline, -1
// when it removes it.
func finalNewlineChange(h diffHunk) int {
	oldNo, newNo := patchHunk{lines: h.lines}.noFinalNewline()
	switch {
	case oldNo && !newNo:
		return 1
	case newNo && !oldNo:
		return -1
	}
	return 0
}

// lastLinesCall is the edit that changes only the final newline: the
// file's last lines, as many as make them unique.
func lastLinesCall(cur []string, nl int) editCall {
	text := strings.Join(cur, "\n")
	k := 1
	for k < len(cur) && countOverlapping(text, strings.Join(cur[len(cur)-k:], "\n")) != 1 {
		k++
	}
	c := editCall{nl: nl}
	for _, l := range cur[len(cur)-k:] {
		c.old = append(c.old, callLine{l, true})
		c.new = append(c.new, callLine{l, true})
	}
	return c
}

func trimCR(ls []string) []string {
	out := make([]string, len(ls))
	for i, l := range ls {
		out[i] = strings.TrimSuffix(l, "\r")
	}
	return out
}

func countOverlapping(s, sub string) int {
	if sub == "" {
		return 0
	}
	n := 0
	for i := 0; ; {
		k := strings.Index(s[i:], sub)
		if k < 0 {
			return n
		}
		n++
		i += k + 1
	}
}

// renderEdit writes an edit call's texts with a noise.
func renderEdit(c editCall, n noise, s fileStyle) (old, new string) {
	o, w := n.apply(c.old, c.new, s)
	old, new = strings.Join(o, "\n"), strings.Join(w, "\n")
	switch c.nl {
	case 1:
		new += "\n"
	case -1:
		old += "\n"
	}
	return old, new
}

// renderPatchCall writes the patch a model makes for a commit: one
// section per file, hunks headed by the function git names (as models copy
// them), with a noise. erased reports a change the noise wiped out.
func renderPatchCall(c historyCommit, n noise, styles map[string]fileStyle) (text string, erased bool) {
	var b strings.Builder
	b.WriteString(hdrBegin + "\n")
	for _, f := range c.files {
		switch f.kind {
		case DeleteFile:
			b.WriteString(hdrDelete + " " + f.path + "\n")
			continue
		case AddFile:
			b.WriteString(hdrAdd + " " + f.path + "\n")
			for _, h := range f.hunks {
				for _, l := range h.lines {
					b.WriteString("+" + l.text + "\n")
					if l.noEOL {
						b.WriteString("\\ No newline at end of file\n")
					}
				}
			}
			continue
		}
		b.WriteString(hdrUpdate + " " + f.path + "\n")
		headers := make([]string, len(f.hunks))
		for i, h := range f.hunks {
			headers[i] = h.header
		}
		if n.anchors != nil {
			headers = n.anchors(headers)
		}
		s := styles[f.path]
		var fileOld, fileNew []callLine
		var fileNo, fileNn []string
		for i, h := range f.hunks {
			b.WriteString(strings.TrimSpace("@@ "+headers[i]) + "\n")
			var old, nw, all []callLine
			for _, l := range h.lines {
				cl := callLine{l.text, l.op != '+'}
				all = append(all, cl)
				if l.op != '+' {
					old = append(old, cl)
				}
				if l.op != '-' {
					nw = append(nw, cl)
				}
			}
			written, _ := n.apply(all, nil, s)
			var no, nn []string
			for k, l := range h.lines {
				if l.op != '+' {
					no = append(no, written[k])
				}
				if l.op != '-' {
					nn = append(nn, written[k])
				}
				if l.op == ' ' && n.bareBlank && isBlank(written[k]) {
					b.WriteString("\n")
				} else {
					b.WriteString(string(l.op) + written[k] + "\n")
				}
				if l.noEOL {
					b.WriteString("\\ No newline at end of file\n")
				}
			}
			erased = erased || wipesChange(old, nw, no, nn) || elsewhere(c.before[f.path], texts(old), no) ||
				n.hidesStyle(nw, s, tabsAround(c.before[f.path], h.oldStart-1, h.oldStart-1+h.oldCount))
			fileOld, fileNew = append(fileOld, old...), append(fileNew, nw...)
			fileNo, fileNn = append(fileNo, no...), append(fileNn, nn...)
		}
		erased = erased || hidesSlip(fileOld, fileNew, fileNo, fileNn)
	}
	b.WriteString(hdrEnd + "\n")
	return b.String(), erased
}

// uniqueContext gives each hunk of an Update more context lines, below
// first, until its old lines match one place after the previous hunk, as
// the tool description asks of a model (git's 3 lines need not be unique).
func uniqueContext(before string, f diffFile) diffFile {
	lines := splitLines(normaliseEOL(before))
	hunks := make([]diffHunk, len(f.hunks))
	prevEnd := 0
	for i, h := range f.hunks {
		start := h.oldStart - 1
		if h.oldCount == 0 {
			start = h.oldStart
		}
		old := trimCR(sideOf(h.lines, '+'))
		next := len(lines)
		if i+1 < len(f.hunks) {
			next = f.hunks[i+1].oldStart - 1
		}
		lo, hi := start, start+len(old)
		for blockCount(lines, prevEnd, lo, hi) != 1 && (lo > prevEnd || hi < next) {
			if hi < next {
				hi++
			} else {
				lo--
			}
			if blockCount(lines, prevEnd, lo, hi) != 1 && lo > prevEnd {
				lo--
			}
		}
		var hl []hunkLine
		for _, l := range lines[lo:start] {
			hl = append(hl, hunkLine{op: ' ', text: l})
		}
		hl = append(hl, h.lines...)
		for _, l := range lines[start+len(old) : hi] {
			hl = append(hl, hunkLine{op: ' ', text: l})
		}
		if hi > start+len(old) {
			// Lines added after the old last line: a marker there moves.
			for k := range h.lines {
				hl[start-lo+k].noEOL = false
			}
		}
		hunks[i] = diffHunk{oldStart: lo + 1, oldCount: hi - lo, header: h.header, lines: hl}
		prevEnd = hi
	}
	f.hunks = hunks
	return f
}

// blockCount counts where lines[lo:hi] appears whole, from line from on.
func blockCount(lines []string, from, lo, hi int) int {
	n := 0
	for k := from; k+hi-lo <= len(lines); k++ {
		same := true
		for j := 0; j < hi-lo && same; j++ {
			same = lines[k+j] == lines[lo+j]
		}
		if same {
			n++
		}
	}
	return n
}

// elsewhere reports whether the slip turned the model's old lines into
// lines the file holds as they are (a block indented one level off that
// reads exactly like a deeper block): no tool can tell that from an edit
// of that other place, so the call is not counted.
func elsewhere(content string, old, noised []string) bool {
	o, n := strings.Join(old, "\n"), strings.Join(noised, "\n")
	if o == n || strings.TrimSpace(n) == "" {
		return false
	}
	return strings.Contains("\n"+normaliseEOL(content), "\n"+n)
}

// modelAnchors sets the @@ line a model writes for each hunk: git's hunk
// header names the function above the hunk, but git's language rules skip
// some definitions (C# properties, nullable return types), naming an
// earlier one; a model names the nearest line of the same kind (same
// indentation and first word) above the hunk instead.
func modelAnchors(before string, f diffFile) diffFile {
	lines := splitLines(normaliseEOL(before))
	hunks := make([]diffHunk, len(f.hunks))
	for k, h := range f.hunks {
		hunks[k] = h
		start := min(h.oldStart-1, len(lines))
		if h.oldCount == 0 {
			start = min(h.oldStart, len(lines))
		}
		at := -1
		for i := start - 1; i >= 0 && h.header != ""; i-- {
			if strings.HasPrefix(strings.TrimSpace(lines[i]), h.header) {
				at = i
				break
			}
		}
		if at < 0 {
			continue
		}
		ind, word := leadingWS(lines[at]), firstWord(lines[at])
		for i := at + 1; i < start && word != ""; i++ {
			if leadingWS(lines[i]) == ind && firstWord(lines[i]) == word {
				hunks[k].header = strings.TrimSpace(lines[i])
			}
		}
	}
	f.hunks = hunks
	return f
}
