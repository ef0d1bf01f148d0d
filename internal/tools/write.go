package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/edit"
	"github.com/coder-agent/coder/internal/plural"
)

//go:embed description/write.md
var writeDescription string

// newFileMode is the mode of files the tools create.
const newFileMode fs.FileMode = 0o644

type writeTool struct {
	ws *Workspace
	g  fileGuard
}

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// planned is the change Preview computed, for Run (see change).
	planned *change
}

func (writeTool) Name() string        { return Write }
func (writeTool) Description() string { return writeDescription }
func (writeTool) Facts() Facts {
	return Facts{Kind: chat.ToolEdit, Effect: EffectEdit, Paths: true, General: true, Claude: []string{"Write"}}
}
func (writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File to write"},` +
		`"content":{"type":"string","description":"The complete new content"}},` +
		`"required":["path","content"]}`)
}

func (t writeTool) Prepare(c *Call) error {
	a, err := decodeArgs[writeArgs](c)
	if err != nil {
		return err
	}
	c.Subject = a.Path
	return c.addPath(t.ws, a.Path, true)
}

func (t writeTool) Run(_ context.Context, c *Call) (Result, error) { return t.write(c), nil }

// Preview is the diff the call would make.
func (t writeTool) Preview(c *Call) (string, error) {
	t.g.dry = true
	return previewOf(t.write(c))
}

func (t writeTool) write(c *Call) Result {
	a := c.Args.(*writeArgs)
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail
	}
	read, existed, fail := t.g.readExisting(tg)
	if fail != nil {
		return *fail
	}
	before := read.text
	ch := a.planned
	if !ch.still(tg, before, existed) {
		ch = writeChange(tg, before, existed, a.Content)
	}
	if existed && before == ch.after {
		return Result{OK: true, Content: fmt.Sprintf("%s unchanged (same content)", tg.Rel), Summary: "unchanged"}
	}
	if existed {
		if fail := t.g.check(tg, before); fail != nil {
			return *fail
		}
	}
	if t.g.dry {
		a.planned = ch
	}
	return t.g.commit(tg, read, ch)
}

// writeChange is content written over the file tg holding before (existed: an
// existing file), with what an existing file has and a model never writes
// kept.
func writeChange(tg target, before string, existed bool, content string) *change {
	kept := ""
	if existed {
		content, kept = edit.KeepStyle(before, content)
	}
	return &change{abs: tg.Abs, existed: existed, before: before, after: content,
		describe: func(added, removed int) string {
			if !existed {
				return fmt.Sprintf("created %s (%s)", tg.Rel, plural.Of(countLines(content), "line"))
			}
			return fmt.Sprintf("wrote %s (%s, +%d -%d)%s", tg.Rel, plural.Of(countLines(content), "line"), added, removed, kept)
		}}
}
