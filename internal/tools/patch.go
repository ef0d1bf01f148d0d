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
	ops   []patchOp
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
	if a.ops, err = parsePatch(a.Patch); err != nil {
		return fmt.Errorf("patch: %v", err)
	}
	var names []string
	for i, op := range a.ops {
		for _, p := range []string{op.path, op.moveTo} {
			if p == "" {
				continue
			}
			if err := c.addPath(t.ws, p, true); err != nil {
				return err
			}
		}
		switch {
		case i < 3:
			names = append(names, op.path)
		case i == 3:
			names = append(names, fmt.Sprintf("+%d more", len(a.ops)-3))
		}
	}
	c.Summary = strings.Join(names, ", ")
	if len(a.ops) > 0 {
		c.Subject = a.ops[0].path
	}
	switch {
	case len(a.ops) == 1 && a.ops[0].kind == patchDelete:
		c.Kind = chat.ToolDelete
	case len(a.ops) == 1 && a.ops[0].moveTo != "":
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
	changes, fail := t.plan(c.Args.(*patchArgs).ops, c.OutsideApproved)
	if fail != nil {
		return *fail
	}
	return t.commit(changes)
}

// fileChange is one file of a patch, checked and computed in memory.
type fileChange struct {
	kind   patchKind
	src    target
	dst    target // the Move to target; src otherwise
	before string
	after  string
	mode   fs.FileMode // of src, for a moved or restored file
	notes  []string
	tmp    target   // the staged new content, until it is renamed into place
	dir    *os.Root // dst's directory, opened once while staging
}

func (c *fileChange) moved() bool { return c.dst.Abs != c.src.Abs }

// plan checks every operation and computes every new content before
// anything is written: a patch that fails anywhere changes nothing.
func (t patchTool) plan(ops []patchOp, outsideApproved bool) ([]*fileChange, *Result) {
	var changes []*fileChange
	byPath := map[string]*fileChange{}
	for _, op := range ops {
		fail := func(format string, a ...any) *Result {
			r := Failure("patch: %s File %s: %s", op.kind, op.path, fmt.Sprintf(format, a...))
			return &r
		}
		src, bad := t.ws.resolveArg(op.path, outsideApproved)
		if bad != nil {
			return nil, fail("%s", failureText(*bad))
		}
		if prev := byPath[src.Abs]; prev != nil {
			// A second Update of the same file goes on from the first.
			if op.kind != patchUpdate || op.moveTo != "" || prev.kind != patchUpdate || prev.moved() {
				return nil, fail("the file already appears earlier in this patch")
			}
			after, notes, err := applyHunks(prev.after, op.hunks)
			if err != nil {
				return nil, fail("%v", err)
			}
			prev.after, prev.notes = after, append(prev.notes, notes...)
			continue
		}
		c, msg := t.planOp(op, src, byPath, outsideApproved)
		if msg != "" {
			return nil, fail("%s", msg)
		}
		changes = append(changes, c)
		byPath[c.src.Abs], byPath[c.dst.Abs] = c, c
	}
	return changes, nil
}

// planOp checks one operation; msg says why it cannot be done.
func (t patchTool) planOp(op patchOp, src target, planned map[string]*fileChange, outsideApproved bool) (*fileChange, string) {
	c := &fileChange{kind: op.kind, src: src, dst: src, mode: newFileMode}
	before, existed, bad := t.g.readExisting(src)
	if bad != nil {
		return nil, failureText(*bad)
	}
	if op.kind == patchAdd {
		if existed {
			return nil, "the file already exists; use *** Update File: to change it"
		}
		c.after = op.add
		return c, ""
	}
	if !existed {
		return nil, "no such file"
	}
	if op.kind == patchUpdate {
		if bad := refuseBinary(src.Rel, before, Patch); bad != nil {
			return nil, failureText(*bad)
		}
	}
	if fail := t.g.check(src, before); fail != nil {
		return nil, failureText(*fail)
	}
	c.before, c.mode = before, t.ws.fileMode(src)
	if op.kind == patchDelete {
		return c, ""
	}
	after, notes, err := applyHunks(before, op.hunks)
	if err != nil {
		return nil, err.Error()
	}
	c.after, c.notes = after, notes
	if op.moveTo != "" {
		dst, msg := t.planMove(op.moveTo, src, planned, outsideApproved)
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
