package edit

import "fmt"

// Why a hunk of an Update has no place: the messages that tell the model
// where to look.

// ambiguous explains a hunk that has several places the other hunks'
// order leaves open.
func (p *placer) ambiguous(i int, ps *hunkPlaces) *hunkError {
	s, h, places := p.spots[i], ps.form.h, ps.cands
	var lines []int
	for k, c := range places {
		if k == maxLinesListed {
			break
		}
		if len(h.old()) == 0 {
			lines = append(lines, lineOf(p.text, c.start-1)) // the anchor line
		} else {
			lines = append(lines, lineOf(p.text, c.start))
		}
	}
	e := &MatchError{count: len(places), lines: lines}
	herr := &hunkError{n: i + 1, header: h.header()}
	if len(h.old()) == 0 {
		herr.msg = fmt.Sprintf("anchor line %q matches %d lines after the previous hunk (lines %s); add a context line to say where the new lines go",
			h.anchors[len(h.anchors)-1], len(places), e.lineList())
		return herr
	}
	where, fix := "", "an @@ anchor line"
	switch {
	case len(s.chain) > 0 && ps.tier != tierElse:
		where, fix = " below its @@ line", "a more specific @@ line"
	case len(s.chain) > 0:
		where = ", none of them under its @@ line,"
	case s.missing != "":
		where, fix = fmt.Sprintf(", and its @@ line %q names no line of the file,", s.missing), "an @@ line copied from the file"
	}
	after := ""
	if ps.hits.rung.tolerant {
		after = " after " + ps.hits.rung.name
	}
	herr.msg = fmt.Sprintf("context matches %d places%s (lines %s)%s; add context lines or %s to make it unique", len(places), where, e.lineList(), after, fix)
	return herr
}

// failure explains a hunk that has no place at or after pos.
func (p *placer) failure(i, pos int, ps *hunkPlaces) *hunkError {
	s := p.spots[i]
	f := ps.form
	if f == nil {
		f = s.forms[0]
	}
	herr := &hunkError{n: i + 1, header: f.h.header()}
	switch {
	case len(f.h.old()) == 0 && s.missing != "":
		herr.msg = fmt.Sprintf("anchor line %q not found", s.missing)
		return herr
	case len(f.h.old()) == 0:
		herr.msg = fmt.Sprintf("anchor line %q not found after line %d", f.h.anchors[len(f.h.anchors)-1], lineOf(p.text, pos))
		return herr
	case ps.conflict != nil:
		herr.msg = fmt.Sprintf("context found at %s, but not under its @@ line; under it, at %s, it lies before the previous hunk: hunks must follow the file's order, and an @@ line names the line the hunk is under, such as the function it is in",
			linesWord(candidateLines(p.text, ps.elsewhere)), linesWord(candidateLines(p.text, ps.conflict)))
		return herr
	}
	for k := range ladder {
		if h := f.rung(p.text, k); h != nil && len(h.cands) > 0 && h.cands[0].start < pos {
			herr.msg = fmt.Sprintf("context found at line %d, before the previous hunk: hunks must follow the file's order", lineOf(p.text, h.cands[0].start))
			return herr
		}
	}
	msg := "context not found (not even after ignoring line endings, whitespace, indentation and Unicode punctuation)"
	if s.missing != "" {
		msg = fmt.Sprintf("anchor line %q not found, and %s", s.missing, msg)
	}
	if closest := closestRegion(p.text, f.q.old, pos); closest != "" {
		msg += "; the most similar part of the file, " + closest + "copy the context and - lines from there exactly"
	}
	herr.msg = msg
	return herr
}

// linesWord is "line 3" or "lines 3, 9".
func linesWord(ls []int) string {
	if len(ls) == 1 {
		return fmt.Sprintf("line %d", ls[0])
	}
	return "lines " + joinInts(ls)
}
