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

type editTool struct{ ws *Workspace }

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
	if !existed && a.OldString != "" {
		return Failure("no such file or directory: %s (to create it, use an empty old_string or write)", tg.Rel), nil
	}
	after, n, fail := replace(tg.Rel, before, a)
	if fail != nil {
		return *fail, nil
	}
	return commitChange(tg, before, after, func(added, removed int) string {
		if !existed {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural(countLines(after), "line"))
		}
		return fmt.Sprintf("edited %s (%s, +%d -%d)", tg.Rel, plural(n, "replacement"), added, removed)
	}), nil
}

// replace applies the edit to content and returns the new content and the
// number of replacements, or the Failure explaining why it cannot.
func replace(rel, content string, a editArgs) (string, int, *Result) {
	fail := func(format string, args ...any) (string, int, *Result) {
		r := Failure(format, args...)
		return "", 0, &r
	}
	if a.OldString == "" {
		if content != "" {
			return fail("old_string is empty but %s is not: give the text to replace, or use write to replace the whole file", rel)
		}
		return a.NewString, 1, nil
	}
	at := occurrences(content, a.OldString)
	switch {
	case len(at) == 0:
		return fail("old_string not found in %s; read the file again and copy the text exactly, whitespace included", rel)
	case len(at) > 1 && !a.ReplaceAll:
		return fail("old_string matches %d times in %s (at lines %s); include more surrounding lines to make it unique, or set replace_all to change every occurrence",
			len(at), rel, lineList(content, at))
	case a.ReplaceAll:
		return strings.ReplaceAll(content, a.OldString, a.NewString), len(at), nil
	}
	return strings.Replace(content, a.OldString, a.NewString, 1), 1, nil
}

// occurrences are the byte offsets of the non-overlapping matches of sub.
func occurrences(s, sub string) []int {
	var at []int
	for off := 0; ; {
		i := strings.Index(s[off:], sub)
		if i < 0 {
			return at
		}
		at = append(at, off+i)
		off += i + len(sub)
	}
}

func lineList(content string, at []int) string {
	var parts []string
	for i, off := range at {
		if i == editMaxLinesListed {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, strconv.Itoa(lineOf(content, off)))
	}
	return strings.Join(parts, ", ")
}
