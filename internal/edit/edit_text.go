package edit

import "strings"

// Edits in memory: the text an edit call leaves, from the file's whole
// content. The tool around it reads, checks and writes the file.

// Replaced is an edit applied in memory.
type Replaced struct {
	Text  string   // the file's new content
	Count int      // the replacements made
	m     match    // the replacement, when there is one
	notes []string // what else changed: the final newline, the BOM
	// BOMAsked: old_string and new_string differ only by a BOM.
	BOMAsked bool
}

// Replace applies an edit (old_string → new_string) to a file's whole content: the BOM is set
// aside, and changes only when the model's texts differ by it alone at the
// start of the file.
func Replace(before, old, repl string, replaceAll bool) (Replaced, *MatchError) {
	bom, body := splitBOM(before)
	old, repl, wantBOM, changeBOM := bomWish(old, repl)
	if changeBOM && !replaceAll {
		at := 0
		if old != "" {
			m, merr := findMatch(body, matchQuery{old: old, new: old})
			if merr != nil {
				return Replaced{}, merr
			}
			at = m.start
		}
		out := Replaced{Text: before, BOMAsked: true}
		if at == 0 && (bom != "") != wantBOM {
			out.Text, out.Count = body, 1
			if wantBOM {
				out.Text = utf8BOM + body
			}
			out.notes = []string{endNote("UTF-8 BOM", wantBOM)}
		}
		return out, nil
	}
	out, merr := applyEdit(body, old, repl, replaceAll)
	if merr != nil {
		return Replaced{}, merr
	}
	out.Text = bom + out.Text
	return out, nil
}

// applyEdit replaces old with repl in content: the unique match found by the
// ladder, or with replaceAll every exact occurrence.
func applyEdit(content, old, repl string, replaceAll bool) (Replaced, *MatchError) {
	if replaceAll {
		return replaceAllExact(content, old, repl)
	}
	if want, change := finalNewlineWish(old, repl); change && content != "" && want != endsWithEOL(content) {
		return changeFinalNewline(content, old, repl)
	}
	m, merr := findMatch(content, matchQuery{old: old, new: repl})
	if merr != nil && merr.count == 0 && content != "" && !endsWithEOL(content) && endsWithEOL(old) {
		// old_string ends with the line break the file lacks at its end.
		q := matchQuery{old: trimEOL(old), new: repl, atEOF: true}
		if endsWithEOL(repl) {
			q.new = trimEOL(repl)
		}
		if m2, merr2 := findMatch(content, q); merr2 == nil {
			m, merr = m2, nil
		}
	}
	if merr != nil {
		return Replaced{}, merr
	}
	out := Replaced{Text: content[:m.start] + m.repl + content[m.end:], Count: 1, m: m}
	if m.end == len(content) && content != "" {
		out.Text, out.notes = finalNewline(content, out.Text, old, repl)
	}
	return out, nil
}

// changeFinalNewline is an edit whose texts differ only by a final line
// break the file lacks (or has): a match at the end of the file comes
// first. Adding a line break elsewhere in a file without a final newline
// is refused: the model most likely meant the end.
func changeFinalNewline(content, old, repl string) (Replaced, *MatchError) {
	m, merr := findMatch(content, matchQuery{old: old, new: repl, atEOF: true})
	if merr != nil && merr.count == 0 && endsWithEOL(old) {
		m, merr = findMatch(content, matchQuery{old: trimEOL(old), new: repl, atEOF: true})
	}
	if merr == nil {
		out := Replaced{Text: content[:m.start] + m.repl, Count: 1, m: m}
		out.Text, out.notes = finalNewline(content, out.Text, old, repl)
		return out, nil
	}
	if merr.count > 0 {
		return Replaced{}, merr
	}
	elsewhere, e := findMatch(content, matchQuery{old: old, new: repl})
	switch {
	case e != nil:
		return Replaced{}, merr
	case endsWithEOL(content):
		// Removing a line break elsewhere: a blank line at the end, or two
		// lines joined, as written.
		return Replaced{Text: content[:elsewhere.start] + elsewhere.repl + content[elsewhere.end:], Count: 1, m: elsewhere}, nil
	}
	// Adding one elsewhere would put a blank line there, which is not
	// what a model asking for the final newline wants.
	return Replaced{}, &MatchError{count: 1, lines: []int{lineOf(content, elsewhere.start)}, rung: elsewhere.rung, notAtEnd: true}
}

// finalNewline gives text, which replaced the end of content, the final
// newline content has (or lacks), unless the model's texts differ by it
// alone.
func finalNewline(content, text, old, repl string) (string, []string) {
	had := endsWithEOL(content)
	want, change := finalNewlineWish(old, repl)
	if !change {
		want = had
	}
	text = setFinalNewline(text, want, fileEOL(content))
	switch {
	case want && !had:
		return text, []string{"added the final newline"}
	case !want && had:
		return text, []string{"removed the final newline"}
	}
	return text, nil
}

// replaceAllExact is replace_all: exact occurrences only, because a
// tolerant match repeated over a file is too easily wrong somewhere. When
// there is none, the ladder runs to tell the model what it would find.
func replaceAllExact(content, old, repl string) (Replaced, *MatchError) {
	cands, split := allExact(content, old)
	if len(cands) == 0 || split {
		m, merr := findMatch(content, matchQuery{old: old, new: repl})
		if merr == nil {
			merr = &MatchError{count: 1, lines: []int{lineOf(content, m.start)}, rung: m.rung}
		}
		merr.replaceAll = true
		return Replaced{}, merr
	}
	q := matchQuery{old: old, new: repl, cache: &textCache{}}
	var b strings.Builder
	last := 0
	for _, c := range cands {
		m, merr := buildMatch(content, c, rungHits{rung: ladder[0], old: old, repl: repl}, q)
		if merr != nil {
			return Replaced{}, merr
		}
		b.WriteString(content[last:c.start])
		b.WriteString(m.repl)
		last = c.end
	}
	b.WriteString(content[last:])
	return Replaced{Text: b.String(), Count: len(cands)}, nil
}

// allExact lists the non-overlapping exact occurrences of old; split
// reports one that would cut a CRLF pair.
func allExact(content, old string) (cands []candidate, split bool) {
	for i := 0; old != "" && i <= len(content)-len(old); {
		k := strings.Index(content[i:], old)
		if k < 0 {
			break
		}
		s := i + k
		if splitsCRLF(content, s, s+len(old)) {
			return nil, true
		}
		cands = append(cands, candidate{s, s + len(old)})
		i = s + len(old)
	}
	return cands, false
}

// Note tells the model what the edit did beyond the plain replacement.
func (r Replaced) Note() string {
	s := r.m.note()
	for _, n := range r.notes {
		s += "; " + n
	}
	return s
}
