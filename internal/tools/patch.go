package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/edit"
)

//go:embed description/patch.md
var patchDescription string

// patchTool applies a multi-file patch: every file or none, across a
// crash too (see patch_apply.go).
type patchTool struct {
	ws      *Workspace
	g       fileGuard
	journal patchJournal
	// writeTemp is writeNewIn; tests swap it to fail half-way.
	writeTemp func(dir *os.Root, name string, data []byte, perm fs.FileMode) error
}

type patchArgs struct {
	Patch string `json:"patch"`
	ops   []edit.FileOp
	// applied and diffs are what Preview computed, for Run (see change).
	applied []*appliedOp
	diffs   []*diffedChange
}

func (patchTool) Name() string        { return Patch }
func (patchTool) Description() string { return patchDescription }
func (patchTool) Facts() Facts {
	return Facts{Kind: chat.ToolEdit, Effect: EffectEdit, Paths: true, General: true, Claude: []string{"Edit", "MultiEdit"}}
}
func (patchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"patch":{"type":"string","description":"The patch, from *** Begin Patch to *** End Patch"}},` +
		`"required":["patch"]}`)
}

// Prepare parses the patch: a malformed envelope is an argument problem.
// Every file it adds, updates, deletes or moves is a path written.
func (t patchTool) Prepare(c *Call) error {
	a, err := decodeArgs[patchArgs](c)
	if err != nil {
		return err
	}
	if a.ops, err = edit.ParsePatch(a.Patch); err != nil {
		return fmt.Errorf("patch: %v", err)
	}
	var names []string
	for i, op := range a.ops {
		for _, p := range []string{op.Path, op.MoveTo} {
			if p == "" {
				continue
			}
			if err := c.addPath(t.ws, p, true); err != nil {
				return err
			}
		}
		switch {
		case i < 3:
			names = append(names, op.Path)
		case i == 3:
			names = append(names, fmt.Sprintf("+%d more", len(a.ops)-3))
		}
	}
	c.Summary = strings.Join(names, ", ")
	if len(a.ops) > 0 {
		c.Subject = a.ops[0].Path
	}
	switch {
	case len(a.ops) == 1 && a.ops[0].Kind == edit.DeleteFile:
		c.Kind = chat.ToolDelete
	case len(a.ops) == 1 && a.ops[0].MoveTo != "":
		c.Kind = chat.ToolMove
	}
	return nil
}

func (t patchTool) Run(_ context.Context, c *Call) (Result, error) { return t.run(c), nil }

// Preview is the combined diff the patch would make.
func (t patchTool) Preview(c *Call) (string, error) {
	t.g.dry = true
	return previewOf(t.run(c))
}

func (t patchTool) run(c *Call) Result {
	a := c.Args.(*patchArgs)
	changes, fail := t.plan(a, c.OutsideApproved)
	if fail != nil {
		return *fail
	}
	return t.commit(a, changes)
}

// fileChange is one file of a patch, checked and computed in memory.
type fileChange struct {
	kind   edit.OpKind
	src    target
	dst    target // the Move to target; src otherwise
	before string
	after  string
	read   fileRead    // src as the patch read it
	op     int         // the operation that made the change
	mode   fs.FileMode // of src, for a moved or restored file
	notes  []string
	tmp    target   // the staged new content, until it is renamed into place
	dir    *os.Root // dst's directory, opened once while staging
}

func (c *fileChange) moved() bool { return c.dst.Abs != c.src.Abs }

// plan checks every operation and computes every new content before
// anything is written: a patch that fails anywhere changes nothing.
func (t patchTool) plan(a *patchArgs, outsideApproved bool) ([]*fileChange, *Result) {
	var changes []*fileChange
	byPath := map[string]*fileChange{}
	for i, op := range a.ops {
		fail := func(format string, args ...any) *Result {
			r := Failure("patch: %s File %s: %s", op.Kind, op.Path, fmt.Sprintf(format, args...))
			return &r
		}
		src, bad := t.ws.resolveArg(op.Path, outsideApproved)
		if bad != nil {
			return nil, fail("%s", failureText(*bad))
		}
		if prev := byPath[src.Abs]; prev != nil {
			// A second Update of the same file goes on from the first.
			if op.Kind != edit.UpdateFile || op.MoveTo != "" || prev.kind != edit.UpdateFile || prev.moved() {
				return nil, fail("the file already appears earlier in this patch")
			}
			after, notes, err := a.apply(i, prev.after)
			if err != nil {
				return nil, fail("%v", err)
			}
			prev.after, prev.notes = after, append(prev.notes, notes...)
			continue
		}
		c, msg := t.planOp(a, i, src, byPath, outsideApproved)
		if msg != "" {
			return nil, fail("%s", msg)
		}
		changes = append(changes, c)
		byPath[c.src.Abs], byPath[c.dst.Abs] = c, c
	}
	return changes, nil
}

// planOp checks one operation; msg says why it cannot be done.
func (t patchTool) planOp(a *patchArgs, i int, src target, planned map[string]*fileChange, outsideApproved bool) (*fileChange, string) {
	op := a.ops[i]
	c := &fileChange{kind: op.Kind, src: src, dst: src, op: i, mode: newFileMode}
	read, existed, bad := t.g.readExisting(src)
	if bad != nil {
		return nil, failureText(*bad)
	}
	before := read.text
	if op.Kind == edit.AddFile {
		if existed {
			return nil, "the file already exists; use *** Update File: to change it"
		}
		c.after = op.Add
		return c, ""
	}
	if !existed {
		return nil, "no such file"
	}
	if op.Kind == edit.UpdateFile {
		if bad := refuseBinary(src.Rel, before, Patch); bad != nil {
			return nil, failureText(*bad)
		}
	}
	if fail := t.g.check(src, before); fail != nil {
		return nil, failureText(*fail)
	}
	c.before, c.read, c.mode = before, read, t.ws.fileMode(src)
	if op.Kind == edit.DeleteFile {
		return c, ""
	}
	after, notes, err := a.apply(i, before)
	if err != nil {
		return nil, err.Error()
	}
	c.after, c.notes = after, notes
	if op.MoveTo != "" {
		dst, msg := t.planMove(op.MoveTo, src, planned, outsideApproved)
		if msg != "" {
			return nil, "Move to: " + msg
		}
		c.dst = dst
	}
	return c, ""
}

// planMove checks the target of a Move to: it must not exist yet.
func (t patchTool) planMove(to string, src target, planned map[string]*fileChange, outsideApproved bool) (target, string) {
	dst, bad := t.ws.resolveArg(to, outsideApproved)
	if bad != nil {
		return target{}, failureText(*bad)
	}
	if dst.Abs == src.Abs {
		return dst, ""
	}
	_, exists, bad := t.g.readExisting(dst)
	if bad != nil {
		return target{}, failureText(*bad)
	}
	if exists || planned[dst.Abs] != nil {
		return target{}, dst.Rel + " already exists"
	}
	return dst, ""
}

// failureText is the error message of a Failure result.
func failureText(r Result) string { return r.Summary }
