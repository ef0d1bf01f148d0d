package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"strings"
)

//go:embed description/patch.md
var patchDescription string

// patchTool applies a multi-file patch: every file or none.
type patchTool struct {
	ws *Workspace
	g  fileGuard
	// write is writeFileAtomic; tests swap it to fail half-way.
	write func(path string, data []byte, perm fs.FileMode) error
}

type patchArgs struct {
	Patch string `json:"patch"`
}

func (patchTool) Name() string        { return "patch" }
func (patchTool) Description() string { return patchDescription }
func (patchTool) ReadOnly() bool      { return false }
func (patchTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"patch":{"type":"string","description":"The patch, from *** Begin Patch to *** End Patch"}},` +
		`"required":["patch"]}`)
}

// Summary names the files: "a.go, b.go +2 more".
func (t patchTool) Summary(args json.RawMessage) string {
	var a patchArgs
	_ = json.Unmarshal(args, &a)
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return "patch"
	}
	var names []string
	for i, op := range ops {
		if i == 3 {
			names = append(names, fmt.Sprintf("+%d more", len(ops)-3))
			break
		}
		names = append(names, op.path)
	}
	return strings.Join(names, ", ")
}

func (t patchTool) ApprovalReasons(args json.RawMessage) []string {
	var a patchArgs
	_ = json.Unmarshal(args, &a)
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return nil
	}
	var paths []string
	for _, op := range ops {
		paths = append(paths, op.path, op.moveTo)
	}
	return t.ws.outsideReasons(paths...)
}

func (t patchTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var a patchArgs
	if fail := decode(args, &a); fail != nil {
		return *fail, nil
	}
	ops, err := parsePatch(a.Patch)
	if err != nil {
		return Failure("patch: %v", err), nil
	}
	changes, fail := t.plan(ctx, ops)
	if fail != nil {
		return *fail, nil
	}
	return t.commit(changes), nil
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
}

func (c *fileChange) moved() bool { return c.dst.Abs != c.src.Abs }

// plan checks every operation and computes every new content before
// anything is written: a patch that fails anywhere changes nothing.
func (t patchTool) plan(ctx context.Context, ops []patchOp) ([]*fileChange, *Result) {
	var changes []*fileChange
	byPath := map[string]*fileChange{}
	for _, op := range ops {
		fail := func(format string, a ...any) *Result {
			r := Failure("patch: %s File %s: %s", op.kind, op.path, fmt.Sprintf(format, a...))
			return &r
		}
		src, bad := t.ws.resolveArg(ctx, op.path)
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
		c, msg := t.planOp(ctx, op, src, byPath)
		if msg != "" {
			return nil, fail("%s", msg)
		}
		changes = append(changes, c)
		byPath[c.src.Abs], byPath[c.dst.Abs] = c, c
	}
	return changes, nil
}

// planOp checks one operation; msg says why it cannot be done.
func (t patchTool) planOp(ctx context.Context, op patchOp, src target, planned map[string]*fileChange) (*fileChange, string) {
	c := &fileChange{kind: op.kind, src: src, dst: src, mode: newFileMode}
	before, existed, bad := readExisting(src)
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
		if bad := refuseBinary(src.Rel, before, "patch"); bad != nil {
			return nil, failureText(*bad)
		}
	}
	if fail := t.g.check(src, before); fail != nil {
		return nil, failureText(*fail)
	}
	c.before, c.mode = before, fileMode(src.Abs)
	if op.kind == patchDelete {
		return c, ""
	}
	after, notes, err := applyHunks(before, op.hunks)
	if err != nil {
		return nil, err.Error()
	}
	c.after, c.notes = after, notes
	if op.moveTo != "" {
		dst, msg := t.planMove(ctx, op.moveTo, src, planned)
		if msg != "" {
			return nil, "Move to: " + msg
		}
		c.dst = dst
	}
	return c, ""
}

// planMove checks the target of a Move to: it must not exist yet.
func (t patchTool) planMove(ctx context.Context, to string, src target, planned map[string]*fileChange) (target, string) {
	dst, bad := t.ws.resolveArg(ctx, to)
	if bad != nil {
		return target{}, failureText(*bad)
	}
	if dst.Abs == src.Abs {
		return dst, ""
	}
	_, exists, bad := readExisting(dst)
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
