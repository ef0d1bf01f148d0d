package edit

import (
	"slices"
	"strings"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// Applying a match faithfully. The model's old text matched a region of the
// file, perhaps only after forgiving drift (whitespace, indentation,
// punctuation, line endings). Its new text must not carry that drift into
// the file: the model's old and new texts are aligned line by line, a line
// the model did not change is written back with the file's own bytes, and
// a line it changed or added takes the file's conventions (line ending,
// indentation, punctuation) where the model's text had drifted from them.

// alignIn is what a replacement is built from.
type alignIn struct {
	region   string // the file's bytes that matched
	old, new string // the model's texts, as the rung adapted them
	// script is the model's own account of its change, old lines to new
	// lines (a patch hunk states it); nil: computed from old and new.
	script []lcs.Diff
	opts   normOpts // the drift the matching rung forgave
	// atLineStart: the region starts at the start of a line of the file.
	atLineStart bool
	eol         string     // the line break after the region's last line
	indent      fileIndent // how the whole file indents
	// swapChars: elsewhere in the same call the model wrote tabs for the
	// file's spaces or the reverse, so its new lines here written that
	// way, matched with no drift to learn from, take the file's
	// indentation characters.
	swapChars indentSwap
}

// alignOut is the replacement for the region.
type alignOut struct {
	repl       string
	reindented bool // a changed line's indentation was mapped to the file's
	// unplaced: old_string's lines are indented alike where the file's
	// differ, so a line new_string adds there has no one indentation.
	unplaced bool
	// swapped: the model indented with tabs where the file has spaces, or
	// the reverse.
	swapped indentSwap
}

// lineParts is a line cut where drift lives: indentation, text, trailing
// whitespace.
type lineParts struct{ indent, body, trail string }

func cutLine(l string) lineParts {
	ind := leadingWS(l)
	rest := l[len(ind):]
	body := strings.TrimRight(rest, " \t")
	return lineParts{ind, body, rest[len(body):]}
}

// aligner holds one replacement being built.
type aligner struct {
	in            alignIn
	old, new      []string // the model's lines
	cmpOld        []string // old as compared with new (see build)
	file, fileEOL []string // the region's lines and their line breaks
	imap          indentMap
	shifted       bool // the model's indentation differs from the file's
	inFileIndent  bool // new is written in the file's indentation already
	typographic   map[rune]bool
	modelUnit     int // the model's indentation step, when swapChars needs it
	reindented    bool
	// unplaced: a line's indentation could not be mapped to the file's.
	unplaced bool
}

// alignReplacement builds the replacement for in.region. ok is false when
// the texts do not line up with the region (a caller bug, refused rather
// than guessed at).
func alignReplacement(in alignIn) (alignOut, bool) {
	a := &aligner{
		in:  in,
		old: strings.Split(normaliseEOL(in.old), "\n"),
		new: strings.Split(normaliseEOL(in.new), "\n"),
	}
	parts := strings.Split(in.region, "\n")
	if len(parts) != len(a.old) {
		return alignOut{}, false
	}
	for i, p := range parts {
		eol := in.eol // the last line's break lies after the region
		if i < len(parts)-1 {
			eol = "\n"
			if strings.HasSuffix(p, "\r") {
				p, eol = p[:len(p)-1], "\r\n"
			}
		}
		a.file, a.fileEOL = append(a.file, p), append(a.fileEOL, eol)
	}
	a.learn()
	return a.build(), true
}

// learn works out the drift between the model's old lines and the file's.
func (a *aligner) learn() {
	a.cmpOld = a.old
	if a.in.opts.indent {
		a.imap, a.shifted = newIndentMap(a.old, a.file, a.in.atLineStart, a.in.old+"\n"+a.in.new, a.in.indent)
	}
	if a.shifted && newInFileIndent(a.old, a.file, a.new) {
		// Compare new with old as the file indents it, and leave new's
		// indentation alone.
		a.inFileIndent = true
		a.cmpOld = make([]string, len(a.old))
		for i, l := range a.old {
			a.cmpOld[i] = leadingWS(a.file[i]) + l[len(leadingWS(l)):]
			if i == 0 && !a.in.atLineStart {
				a.cmpOld[i] = l
			}
		}
	}
	if a.in.opts.unicode {
		a.typographic = typographicDrift(a.in.old, a.in.region)
	}
	if a.in.swapChars != 0 {
		a.modelUnit = indentStep(append(slices.Clip(a.old), a.new...))
	}
}

// outLine is one line of the replacement and the line break after it (""
// when the region's line break decides nothing).
type outLine struct{ text, eol string }

// build walks the model's script: unchanged lines come from the file,
// changed ones are adapted.
func (a *aligner) build() alignOut {
	script := a.in.script
	if script == nil {
		script = lcs.DiffLines(a.cmpOld, a.new)
	}
	var out []outLine
	walkScript(script, len(a.file), len(a.new),
		func(i, _ int) { out = append(out, outLine{a.file[i], a.fileEOL[i]}) },
		func(d lcs.Diff) { out = append(out, a.changed(d)...) })
	return alignOut{repl: a.join(out), reindented: a.reindented, unplaced: a.unplaced, swapped: a.imap.swapsChars()}
}

// changed adapts a block the model changed: old lines [Start, End) became
// new lines [ReplStart, ReplEnd). A new line is paired with the old line it
// rewrites (same text up to drift, or mostly the same) and then keeps what
// it did not change from the file's line; other new lines are added lines.
func (a *aligner) changed(d lcs.Diff) []outLine {
	pairs := pairLines(a.cmpOld[d.Start:d.End], a.new[d.ReplStart:d.ReplEnd])
	var out []outLine
	for k := range d.ReplEnd - d.ReplStart {
		n := a.new[d.ReplStart+k]
		if p, ok := pairs[k]; ok {
			i := d.Start + p
			// A line the model's own script removes and adds again as it
			// was: what it asks for is the line as it wrote it.
			asked := a.in.script != nil && a.cmpOld[i] == n
			out = append(out, outLine{a.rewrite(i, n, asked), a.fileEOL[i]})
			continue
		}
		// An added line lies among the old lines the block replaces.
		at := 2*(d.Start+min(k, d.End-d.Start)) - 1
		out = append(out, outLine{a.added(n, d.ReplStart+k == 0, at), ""})
	}
	return out
}

// rewrite is new line n replacing the file's line i (the model's old line
// i): indentation, text and trailing whitespace the model did not change
// stay the file's. With asked, every difference from the file's line is
// one the model asks for.
func (a *aligner) rewrite(i int, n string, asked bool) string {
	if n == "" {
		return n // emptied: no indentation to map, no whitespace to keep
	}
	old := a.cmpOld[i]
	if asked {
		old = a.file[i]
	}
	o, f, m := cutLine(old), cutLine(a.file[i]), cutLine(n)
	if i == 0 && !a.in.atLineStart {
		// The line's start lies before the region: no indentation here.
		o, f, m = lineParts{body: o.indent + o.body, trail: o.trail}, lineParts{body: f.indent + f.body, trail: f.trail}, lineParts{body: m.indent + m.body, trail: m.trail}
	}
	ind := f.indent
	if m.indent != o.indent {
		ind = a.indentOf(m.indent, 2*i)
	}
	trail := m.trail
	if m.trail == o.trail {
		trail = f.trail
	}
	if m.body == "" && o.body != "" {
		trail = m.trail // the line was emptied: no stray whitespace
	}
	return ind + keepUnchanged(o.body, f.body, m.body, a.in.opts.unicode, a.typographic) + trail
}

// added is a line the model added at at (see indentMap.apply): its
// indentation mapped to the file's, the model's typographic slips undone.
func (a *aligner) added(n string, first bool, at int) string {
	if first && !a.in.atLineStart {
		return asciiFor(n, a.typographic)
	}
	if n == "" {
		return n
	}
	ind := leadingWS(n) // all of a line of whitespace, mapped as well
	return a.indentOf(ind, at) + asciiFor(n[len(ind):], a.typographic)
}

// indentOf maps an indentation of the model's new text, on a line at at
// (see indentMap.apply), to the file's.
func (a *aligner) indentOf(ind string, at int) string {
	var to string
	switch {
	case a.inFileIndent:
		return ind
	case a.shifted:
		var ok bool
		if to, ok = a.imap.apply(ind, at); !ok {
			a.unplaced = true
		}
	case a.in.swapChars != 0:
		to = a.in.indent.convert(ind, a.modelUnit, a.in.swapChars)
	default:
		return ind // nothing says the model's indentation is not the file's
	}
	a.reindented = a.reindented || to != ind
	return to
}

// join writes the lines with their line breaks: a line break the region
// does not decide is the one before it, else the region's usual one.
func (a *aligner) join(out []outLine) string {
	def := dominantEOL(a.in.region, a.in.eol)
	var b strings.Builder
	last := ""
	for k, l := range out {
		// A line's own break decides; an added line takes the break of
		// the line before it, else the region's usual one.
		b.WriteString(l.text)
		if k == len(out)-1 {
			break
		}
		switch {
		case l.eol != "":
			last = l.eol
		case last != "":
			l.eol = last
		default:
			l.eol = def
		}
		b.WriteString(l.eol)
	}
	return b.String()
}

// pairLines pairs the new lines of a changed block with the old lines they
// rewrite, in order: first lines equal up to drift; then, between those,
// as many new lines as old ones each rewrite the one in their place (but a
// blank line and a line with text never pair), and otherwise lines at
// least half alike do. The result maps a new line's index to an old
// line's.
func pairLines(old, repl []string) map[int]int {
	pairs := map[int]int{}
	ok, nk := lineKeys(old), lineKeys(repl)
	walkScript(lcs.DiffLines(ok, nk), len(ok), len(nk),
		func(i, j int) { pairs[j] = i },
		func(d lcs.Diff) {
			inPlace := d.End-d.Start == d.ReplEnd-d.ReplStart
			for i, j := d.Start, d.ReplStart; i < d.End && j < d.ReplEnd; i, j = i+1, j+1 {
				// A blank line written over is not rewritten: what takes
				// its place is added, indented as added lines are.
				if (inPlace && (ok[i] == "") == (nk[j] == "")) || similarity(ok[i], nk[j]) >= 0.5 {
					pairs[j] = i
				}
			}
		})
	return pairs
}

// walkScript walks a line diff of n old lines against m new ones in
// order: kept(i, j) for each unchanged pair of lines, changed(d) for each
// change between them (nil: nothing to do there).
func walkScript(script []lcs.Diff, n, m int, kept func(i, j int), changed func(d lcs.Diff)) {
	i, j := 0, 0
	for _, d := range script {
		for ; i < d.Start; i, j = i+1, j+1 {
			kept(i, j)
		}
		if changed != nil {
			changed(d)
		}
		i, j = d.End, d.ReplEnd
	}
	for ; i < n && j < m; i, j = i+1, j+1 {
		kept(i, j)
	}
}
