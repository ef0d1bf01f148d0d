package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

//go:embed description/write.md
var writeDescription string

// newFileMode is the mode of files the tools create.
const newFileMode fs.FileMode = 0o644

type writeTool struct{ ws *Workspace }

type writeArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
}

func (writeTool) Name() string        { return "write" }
func (writeTool) Description() string { return writeDescription }
func (writeTool) ReadOnly() bool      { return false }
func (writeTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"File to write"},` +
		`"content":{"type":"string","description":"The complete new content"}},` +
		`"required":["path","content"]}`)
}

func (t writeTool) Summary(args json.RawMessage) string {
	var a writeArgs
	_ = json.Unmarshal(args, &a)
	return a.Path
}

func (t writeTool) ApprovalReasons(args json.RawMessage) []string {
	var a writeArgs
	_ = json.Unmarshal(args, &a)
	return t.ws.outsideReasons(a.Path)
}

func (t writeTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var a writeArgs
	if fail := decode(args, &a); fail != nil {
		return *fail, nil
	}
	tg, fail := t.ws.resolveArg(ctx, a.Path)
	if fail != nil {
		return *fail, nil
	}
	before, existed, fail := readExisting(tg)
	if fail != nil {
		return *fail, nil
	}
	if existed && before == a.Content {
		return Result{OK: true, Content: fmt.Sprintf("%s unchanged (same content)", tg.Rel), Summary: "unchanged"}, nil
	}
	return commitChange(tg, before, a.Content, func(added, removed int) string {
		if !existed {
			return fmt.Sprintf("created %s (%s)", tg.Rel, plural(countLines(a.Content), "line"))
		}
		return fmt.Sprintf("wrote %s (%s, +%d -%d)", tg.Rel, plural(countLines(a.Content), "line"), added, removed)
	}), nil
}

// readExisting returns the current content of a file a tool is about to
// change; existed is false when it does not exist yet.
func readExisting(tg target) (content string, existed bool, fail *Result) {
	fi, err := os.Stat(tg.Abs)
	if errors.Is(err, fs.ErrNotExist) {
		return "", false, nil
	}
	if err == nil && fi.IsDir() {
		r := Failure("%s is a directory", tg.Rel)
		return "", false, &r
	}
	if err == nil && !fi.Mode().IsRegular() {
		r := Failure("%s is not a regular file", tg.Rel)
		return "", false, &r
	}
	data, err := os.ReadFile(tg.Abs)
	if err != nil {
		r := fileFailure(tg.Rel, err)
		return "", false, &r
	}
	return string(data), true, nil
}

// commitChange writes after atomically and returns the Result with its diff;
// describe words the model's message from the diff's line counts.
func commitChange(tg target, before, after string, describe func(added, removed int) string) Result {
	if err := writeFileAtomic(tg.Abs, []byte(after), newFileMode); err != nil {
		if errors.Is(err, syscall.ENOTDIR) {
			return fileFailure(tg.Rel, err)
		}
		return Failure("cannot write %s: %v", tg.Rel, bareError(err))
	}
	diff := unifiedDiff(tg.Rel, before, after)
	added, removed := diffStat(diff)
	return Result{
		OK:      true,
		Content: describe(added, removed),
		Summary: fmt.Sprintf("+%d -%d", added, removed),
		Diff:    diff,
		Changed: []string{tg.Rel},
	}
}
