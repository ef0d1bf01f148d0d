package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

//go:embed description/edit.md
var editDescription string

// editMaxLinesListed bounds the line numbers an ambiguity failure lists.
const editMaxLinesListed = 10

type editTool struct {
	ws *Workspace
	g  fileGuard
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

func (editTool) Name() string        { return "edit" }
func (editTool) Description() string { return editDescription }
func (editTool) ReadOnly() bool      { return false }
func (editTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File to edit"},` +
		`"old_string":{"type":"string","description":"Exact text to replace"},` +
		`"new_string":{"type":"string","description":"Replacement text"},` +
		`"replace_all":{"type":"boolean","description":"Replace every occurrence"}},` +
		`"required":["path","old_string","new_string"]}`)
}

func (t editTool) Summary(args json.RawMessage) string {
	var a editArgs
	_ = json.Unmarshal(args, &a)
	return a.Path
}

func (t editTool) ApprovalReasons(args json.RawMessage) []string {
	var a editArgs
	_ = json.Unmarshal(args, &a)
	return t.ws.outsideReasons(a.Path)
}

func (t editTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var a editArgs
	if fail := decode(args, &a); fail != nil {
		return *fail, nil
	}
	if a.OldString == a.NewString {
		return Failure("old_string and new_string are identical; nothing to change"), nil
	}
	tg, fail := t.ws.resolveArg(ctx, a.Path)
	if fail != nil {
		return *fail, nil
	}
	before, existed, fail := readExisting(tg)
	if fail != nil {
		return *fail, nil
	}
	if !existed {
		if a.OldString != "" {
			return Failure("no such file or directory: %s (to create it, use an empty old_string or write)", tg.Rel), nil
		}
		return t.g.commit(tg, "", a.NewString, func(int, int) string {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural(countLines(a.NewString), "line"))
		}), nil
	}
	if fail := refuseBinary(tg.Rel, before, "edit"); fail != nil {
		return *fail, nil
	}
	if fail := t.g.check(tg, before); fail != nil {
		return *fail, nil
	}
	return t.edit(tg, before, a), nil
}

// edit applies a to the existing file tg holding before.
func (t editTool) edit(tg target, before string, a editArgs) Result {
	if a.OldString == "" {
		if before != "" {
			return Failure("old_string is empty but %s is not: give the text to replace, or use write to replace the whole file", tg.Rel)
		}
		return t.g.commit(tg, before, a.NewString, func(int, int) string {
			return fmt.Sprintf("filled %s (%s)", tg.Rel, plural(countLines(a.NewString), "line"))
		})
	}
	out, merr := editText(before, a.OldString, a.NewString, a.ReplaceAll)
	if merr != nil {
		return editFailure(tg.Rel, merr)
	}
	if out.text == before {
		if out.bomAsked {
			return Failure("the edit changes nothing in %s: a BOM is added or removed only at the start of the file, with old_string the file's first text", tg.Rel)
		}
		return Failure("the edit changes nothing in %s: the matched text already reads like new_string", tg.Rel)
	}
	return t.g.commit(tg, before, out.text, func(added, removed int) string {
		return fmt.Sprintf("edited %s (%s, +%d -%d)%s", tg.Rel, plural(out.count, "replacement"), added, removed, out.note())
	})
}

// editResult is an edit applied in memory.
type editResult struct {
	text  string
	count int
	m     match    // the replacement, when there is one
	notes []string // what else changed: the final newline, the BOM
	// bomAsked: old_string and new_string differ only by a BOM.
	bomAsked bool
}

// editText applies an edit to a file's whole content: the BOM is set
// aside, and changes only when the model's texts differ by it alone at the
// start of the file.
func editText(before, old, repl string, replaceAll bool) (editResult, *matchError) {
	bom, body := splitBOM(before)
	old, repl, wantBOM, changeBOM := bomWish(old, repl)
	if changeBOM && !replaceAll {
		at := 0
		if old != "" {
			m, merr := findMatch(body, matchQuery{old: old, new: old})
			if merr != nil {
				return editResult{}, merr
			}
			at = m.start
		}
		out := editResult{text: before, bomAsked: true}
		if at == 0 && (bom != "") != wantBOM {
			out.text, out.count = body, 1
			if wantBOM {
				out.text = utf8BOM + body
			}
			out.notes = []string{"removed the UTF-8 BOM"}
			if wantBOM {
				out.notes = []string{"added the UTF-8 BOM"}
			}
		}
		return out, nil
	}
	out, merr := applyEdit(body, old, repl, replaceAll)
	if merr != nil {
		return editResult{}, merr
	}
	out.text = bom + out.text
	return out, nil
}

// applyEdit replaces old with repl in content: the unique match found by the
// ladder, or with replaceAll every exact occurrence.
func applyEdit(content, old, repl string, replaceAll bool) (editResult, *matchError) {
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
		return editResult{}, merr
	}
	out := editResult{text: content[:m.start] + m.repl + content[m.end:], count: 1, m: m}
	if m.end == len(content) && content != "" {
		out.text, out.notes = finalNewline(content, out.text, old, repl)
	}
	return out, nil
}

// changeFinalNewline is an edit whose texts differ only by a final line
// break the file lacks (or has): a match at the end of the file comes
// first. Adding a line break elsewhere in a file without a final newline
// is refused: the model most likely meant the end.
func changeFinalNewline(content, old, repl string) (editResult, *matchError) {
	m, merr := findMatch(content, matchQuery{old: old, new: repl, atEOF: true})
	if merr != nil && merr.count == 0 && endsWithEOL(old) {
		m, merr = findMatch(content, matchQuery{old: trimEOL(old), new: repl, atEOF: true})
	}
	if merr == nil {
		out := editResult{text: content[:m.start] + m.repl, count: 1, m: m}
		out.text, out.notes = finalNewline(content, out.text, old, repl)
		return out, nil
	}
	if merr.count > 0 {
		return editResult{}, merr
	}
	elsewhere, e := findMatch(content, matchQuery{old: old, new: repl})
	switch {
	case e != nil:
		return editResult{}, merr
	case endsWithEOL(content):
		// Removing a line break elsewhere: a blank line at the end, or two
		// lines joined, as written.
		return editResult{text: content[:elsewhere.start] + elsewhere.repl + content[elsewhere.end:], count: 1, m: elsewhere}, nil
	}
	// Adding one elsewhere would put a blank line there, which is not
	// what a model asking for the final newline wants.
	return editResult{}, &matchError{count: 1, lines: []int{lineOf(content, elsewhere.start)}, rung: elsewhere.rung, notAtEnd: true}
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
func replaceAllExact(content, old, repl string) (editResult, *matchError) {
	cands, split := allExact(content, old)
	if len(cands) == 0 || split {
		m, merr := findMatch(content, matchQuery{old: old, new: repl})
		if merr == nil {
			merr = &matchError{count: 1, lines: []int{lineOf(content, m.start)}, rung: m.rung}
		}
		merr.replaceAll = true
		return editResult{}, merr
	}
	q := matchQuery{old: old, new: repl, cache: &textCache{}}
	var b strings.Builder
	last := 0
	for _, c := range cands {
		m, merr := buildMatch(content, c, rungHits{rung: ladder[0], old: old, repl: repl}, q)
		if merr != nil {
			return editResult{}, merr
		}
		b.WriteString(content[last:c.start])
		b.WriteString(m.repl)
		last = c.end
	}
	b.WriteString(content[last:])
	return editResult{text: b.String(), count: len(cands)}, nil
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

// note tells the model what the edit did beyond the plain replacement.
func (r editResult) note() string {
	s := r.m.note()
	for _, n := range r.notes {
		s += "; " + n
	}
	return s
}

// note tells the model which tolerance a match needed.
func (m match) note() string {
	if !m.rung.tolerant {
		return ""
	}
	s := "; matched after " + m.rung.name
	if m.reindented {
		s += "; new_string was re-indented to the file's indentation"
	}
	return s
}

// editFailure explains a matchError to the model.
func editFailure(rel string, e *matchError) Result {
	switch {
	case e.notAtEnd:
		return Failure("new_string is old_string with a line break added, which adds the final newline %s lacks only where old_string ends the file, but it matches line %d; make old_string the last lines of the file, or include the next line to insert a blank line",
			rel, e.lines[0])
	case e.unfaithful != "":
		return Failure("old_string matches line %d of %s %s, but nothing was changed: %s; copy old_string and the unchanged lines of new_string exactly from the file",
			e.lines[0], rel, e.rung.after(), e.unfaithful)
	case e.replaceAll && e.count > 0:
		return Failure("old_string has no exact match in %s, and replace_all matches exactly only; after %s it matches %s (lines %s): copy the exact text from the file, or drop replace_all to edit one unique place",
			rel, e.rung.name, plural(e.count, "place"), e.lineList())
	case e.count > 1 && e.rung.tolerant:
		return Failure("old_string matches %d places in %s (lines %s) after %s; include more surrounding lines to make it unique",
			e.count, rel, e.lineList(), e.rung.name)
	case e.count > 1:
		return Failure("old_string matches %d places in %s (lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence",
			e.count, rel, e.lineList())
	}
	why := " (not even after ignoring line endings, whitespace, indentation and Unicode punctuation)"
	if e.replaceAll {
		why = " (replace_all matches exactly)"
	}
	if e.closest == "" {
		return Failure("old_string not found in %s%s; read the file again and copy the text exactly", rel, why)
	}
	return Failure("old_string not found in %s%s. The most similar part of the file, %sCopy old_string from there exactly (without the line-number prefix) and try again.", rel, why, e.closest)
}

// lineList is the candidates' line numbers, "…" when there are more.
func (e *matchError) lineList() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = strconv.Itoa(l)
	}
	if e.count > len(e.lines) {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}
