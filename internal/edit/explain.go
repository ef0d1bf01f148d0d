package edit

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/plural"
)

// What a refused edit tells the model: which place, which rung, what to
// copy from the file.

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

// Explain is the refusal the model reads; rel names the file.
func (e *MatchError) Explain(rel string) string {
	switch {
	case e.notAtEnd:
		return fmt.Sprintf("new_string is old_string with a line break added, which adds the final newline %s lacks only where old_string ends the file, but it matches line %d; make old_string the last lines of the file, or include the next line to insert a blank line",
			rel, e.lines[0])
	case e.unfaithful != "":
		return fmt.Sprintf("old_string matches line %d of %s %s, but nothing was changed: %s; copy old_string and the unchanged lines of new_string exactly from the file",
			e.lines[0], rel, e.rung.after(), e.unfaithful)
	case e.replaceAll && e.count > 0:
		return fmt.Sprintf("old_string has no exact match in %s, and replace_all matches exactly only; after %s it matches %s (lines %s): copy the exact text from the file, or drop replace_all to edit one unique place",
			rel, e.rung.name, plural.Of(e.count, "place"), e.lineList())
	case e.count > 1 && e.rung.tolerant:
		return fmt.Sprintf("old_string matches %d places in %s (lines %s) after %s; include more surrounding lines to make it unique",
			e.count, rel, e.lineList(), e.rung.name)
	case e.count > 1:
		return fmt.Sprintf("old_string matches %d places in %s (lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence",
			e.count, rel, e.lineList())
	}
	why := " (not even after ignoring line endings, whitespace, indentation and Unicode punctuation)"
	if e.replaceAll {
		why = " (replace_all matches exactly)"
	}
	if e.closest == "" {
		return fmt.Sprintf("old_string not found in %s%s; read the file again and copy the text exactly", rel, why)
	}
	return fmt.Sprintf("old_string not found in %s%s. The most similar part of the file, %sCopy old_string from there exactly (without the line-number prefix) and try again.", rel, why, e.closest)
}

// lineList is the candidates' line numbers, "…" when there are more.
func (e *MatchError) lineList() string {
	parts := make([]string, len(e.lines))
	for i, l := range e.lines {
		parts[i] = strconv.Itoa(l)
	}
	if e.count > len(e.lines) {
		parts = append(parts, "…")
	}
	return strings.Join(parts, ", ")
}
