package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
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
	before, existed, fail := t.g.readExisting(tg)
	if fail != nil {
		return *fail
	}
	content, kept := a.Content, ""
	if existed {
		content, kept = keepFileStyle(before, a.Content)
	}
	if existed && before == content {
		return Result{OK: true, Content: fmt.Sprintf("%s unchanged (same content)", tg.Rel), Summary: "unchanged"}
	}
	if existed {
		if fail := t.g.check(tg, before); fail != nil {
			return *fail
		}
	}
	return t.g.commit(tg, before, content, func(added, removed int) string {
		if !existed {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural(countLines(content), "line"))
		}
		return fmt.Sprintf("wrote %s (%s, +%d -%d)%s", tg.Rel, plural(countLines(content), "line"), added, removed, kept)
	})
}

// keepFileStyle keeps what a model never writes but an existing file has: a
// UTF-8 BOM and CRLF line endings (when content has no CR at all). kept
// says so for the message.
func keepFileStyle(before, content string) (string, string) {
	var notes []string
	if fileEOL(before) == "\r\n" && !strings.Contains(content, "\r") {
		content = toCRLF(content)
		notes = append(notes, "CRLF line endings")
	}
	if strings.HasPrefix(before, utf8BOM) && !strings.HasPrefix(content, utf8BOM) {
		content = utf8BOM + content
		notes = append(notes, "the UTF-8 BOM")
	}
	if len(notes) == 0 {
		return content, ""
	}
	return content, "; kept the file's " + strings.Join(notes, " and ")
}
