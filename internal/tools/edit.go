package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
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

func (editTool) Name() string        { return Edit }
func (editTool) Description() string { return editDescription }
func (editTool) Facts() Facts {
	return Facts{Kind: chat.ToolEdit, Effect: EffectEdit, Paths: true, General: true, Claude: []string{"Edit", "MultiEdit"}}
}
func (editTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File to edit"},` +
		`"old_string":{"type":"string","description":"Exact text to replace"},` +
		`"new_string":{"type":"string","description":"Replacement text"},` +
		`"replace_all":{"type":"boolean","description":"Replace every occurrence"}},` +
		`"required":["path","old_string","new_string"]}`)
}

func (t editTool) Prepare(c *Call) error {
	a, err := decodeArgs[editArgs](c)
	if err != nil {
		return err
	}
	c.Subject = a.Path
	return c.addPath(t.ws, a.Path, true)
}

func (t editTool) Run(_ context.Context, c *Call) (Result, error) { return t.run(c), nil }

// Preview is the diff the call would make.
func (t editTool) Preview(c *Call) (string, error) {
	t.g.dry = true
	return previewOf(t.run(c))
}

func (t editTool) run(c *Call) Result {
	a := *c.Args.(*editArgs)
	if a.OldString == a.NewString {
		return Failure("old_string and new_string are identical; nothing to change")
	}
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail
	}
	before, existed, fail := t.g.readExisting(tg)
	if fail != nil {
		return *fail
	}
	if !existed {
		if a.OldString != "" {
			return Failure("no such file or directory: %s (to create it, use an empty old_string or write)", tg.Rel)
		}
		return t.g.commit(tg, "", a.NewString, func(int, int) string {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural(countLines(a.NewString), "line"))
		})
	}
	if fail := refuseBinary(tg.Rel, before, Edit); fail != nil {
		return *fail
	}
	if fail := t.g.check(tg, before); fail != nil {
		return *fail
	}
	return t.edit(tg, before, a)
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
