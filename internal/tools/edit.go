package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/edit"
	"github.com/coder-agent/coder/internal/plural"
)

//go:embed description/edit.md
var editDescription string

type editTool struct {
	ws *Workspace
	g  fileGuard
}

type editArgs struct {
	Path       string `json:"path"`
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
	// planned is the change Preview computed, for Run (see change).
	planned *change
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
	a := c.Args.(*editArgs)
	if a.OldString == a.NewString {
		return Failure("old_string and new_string are identical; nothing to change")
	}
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail
	}
	read, existed, fail := t.g.readExisting(tg)
	if fail != nil {
		return *fail
	}
	if existed {
		if fail := refuseBinary(tg.Rel, read.text, Edit); fail != nil {
			return *fail
		}
		if fail := t.g.check(tg, read.text); fail != nil {
			return *fail
		}
	}
	ch := a.planned
	if !ch.still(tg, read.text, existed) {
		if ch, fail = t.change(tg, read.text, existed, *a); fail != nil {
			return *fail
		}
	}
	if t.g.dry {
		a.planned = ch
	}
	return t.g.commit(tg, read, ch)
}

// change is what a makes of the file tg holding before (existed: an
// existing file).
func (t editTool) change(tg target, before string, existed bool, a editArgs) (*change, *Result) {
	ch := &change{abs: tg.Abs, existed: existed, before: before, after: a.NewString}
	fail := func(format string, args ...any) (*change, *Result) {
		r := Failure(format, args...)
		return nil, &r
	}
	switch {
	case !existed && a.OldString != "":
		return fail("no such file or directory: %s (to create it, use an empty old_string or write)", tg.Rel)
	case !existed:
		ch.describe = func(int, int) string {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural.Of(countLines(a.NewString), "line"))
		}
		return ch, nil
	case a.OldString == "" && before != "":
		return fail("old_string is empty but %s is not: give the text to replace, or use write to replace the whole file", tg.Rel)
	case a.OldString == "":
		ch.describe = func(int, int) string {
			return fmt.Sprintf("filled %s (%s)", tg.Rel, plural.Of(countLines(a.NewString), "line"))
		}
		return ch, nil
	}
	out, merr := edit.Replace(before, a.OldString, a.NewString, a.ReplaceAll)
	if merr != nil {
		return fail("%s", merr.Explain(tg.Rel))
	}
	if out.Text == before {
		if out.BOMAsked {
			return fail("the edit changes nothing in %s: a BOM is added or removed only at the start of the file, with old_string the file's first text", tg.Rel)
		}
		return fail("the edit changes nothing in %s: the matched text already reads like new_string", tg.Rel)
	}
	ch.after = out.Text
	ch.describe = func(added, removed int) string {
		return fmt.Sprintf("edited %s (%s, +%d -%d)%s", tg.Rel, plural.Of(out.Count, "replacement"), added, removed, out.Note())
	}
	return ch, nil
}
