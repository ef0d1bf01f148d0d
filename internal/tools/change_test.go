package tools

import (
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// previewCalls are write, edit and patch calls that turn f.txt's "two"
// into "TWO".
var previewCalls = []struct {
	tool string
	args map[string]any
}{
	{Edit, map[string]any{"path": "f.txt", "old_string": "two", "new_string": "TWO"}},
	{Write, map[string]any{"path": "f.txt", "content": "one\nTWO\n"}},
	{Patch, map[string]any{"patch": "*** Begin Patch\n*** Update File: f.txt\n one\n-two\n+TWO\n*** End Patch"}},
}

// previewThenRun decodes a call, previews it (as the orchestrator does for
// an approval), lets between change the workspace, and runs the call.
func previewThenRun(t *testing.T, ws *Workspace, tool string, args map[string]any, between func(c *Call)) (preview string, res Result) {
	t.Helper()
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	c := decodeCall(t, builtin(t, ws, tool), string(raw))
	preview, err = c.Tool.(Previewer).Preview(c)
	if err != nil {
		t.Fatal(err)
	}
	if between != nil {
		between(c)
	}
	res, err = Execute(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return preview, res
}

// What a person approved is what is written; a file changed on disk after
// the preview is refused as any stale file is, and once read again the
// call applies to what it holds now.
func TestChangeAfterPreview(t *testing.T) {
	t.Parallel()
	for _, pc := range previewCalls {
		t.Run(pc.tool, func(t *testing.T) {
			t.Parallel()
			setup := func() (*Workspace, string) {
				ws := newWS(t)
				writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\n"})
				readPaths(t, ws, "f.txt")
				return ws, filepath.Join(ws.Root, "f.txt")
			}

			ws, abs := setup()
			preview, res := previewThenRun(t, ws, pc.tool, pc.args, nil)
			mustOK(t, res)
			if got := readFile(t, abs); got != "one\nTWO\n" {
				t.Errorf("as approved: file %q", got)
			}
			if res.Diff != preview || !strings.Contains(preview, "+TWO") {
				t.Errorf("written diff %q, previewed %q", res.Diff, preview)
			}

			ws, abs = setup()
			_, res = previewThenRun(t, ws, pc.tool, pc.args, func(*Call) {
				writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\nthree\n"})
			})
			if msg := failure(t, res); !strings.Contains(msg, "changed on disk since you read it") {
				t.Errorf("changed after the preview: %s", msg)
			}
			if got := readFile(t, abs); got != "one\ntwo\nthree\n" {
				t.Errorf("changed after the preview, then written: %q", got)
			}

			if pc.tool == Write {
				return // write's content is the model's, whatever the file held
			}
			ws, abs = setup()
			preview, res = previewThenRun(t, ws, pc.tool, pc.args, func(*Call) {
				writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\nthree\n"})
				readPaths(t, ws, "f.txt")
			})
			mustOK(t, res)
			if got := readFile(t, abs); got != "one\nTWO\nthree\n" {
				t.Errorf("read again after the preview: file %q", got)
			}
			if res.Diff == preview {
				t.Errorf("read again after the preview: the previewed diff was reported")
			}
		})
	}
}

// The change a preview computed is the one Run writes when the file is as
// the preview read it: Run does not match or diff again. Marking the kept
// change shows which was written; a file changed (and read again) since
// the preview is computed anew.
func TestPreviewedChangeIsWrittenAsComputed(t *testing.T) {
	t.Parallel()
	mark := func(c *Call) {
		switch a := c.Args.(type) {
		case *editArgs:
			a.planned.after, a.planned.diffed = "MARK\n", nil
		case *writeArgs:
			a.planned.after, a.planned.diffed = "MARK\n", nil
		case *patchArgs:
			a.applied[0].out = "MARK\n"
		}
	}
	for _, pc := range previewCalls {
		t.Run(pc.tool, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			abs := filepath.Join(ws.Root, "f.txt")
			writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\n"})
			readPaths(t, ws, "f.txt")
			_, res := previewThenRun(t, ws, pc.tool, pc.args, mark)
			mustOK(t, res)
			if got := readFile(t, abs); got != "MARK\n" {
				t.Errorf("the previewed change was not the one written: file %q", got)
			}

			writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\n"})
			readPaths(t, ws, "f.txt")
			_, res = previewThenRun(t, ws, pc.tool, pc.args, func(c *Call) {
				mark(c)
				writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\nthree\n"})
				readPaths(t, ws, "f.txt")
			})
			mustOK(t, res)
			if got := readFile(t, abs); got == "MARK\n" {
				t.Errorf("a change computed for other content was written")
			}
		})
	}
}

// The undo hook is handed what the call read of each file from the disk,
// with the file's status, so undo need not read it again; nothing for a
// new file, a move's target or an editor's buffer (which may differ from
// the disk).
func TestBeforeChangeGetsTheRead(t *testing.T) {
	t.Parallel()
	type got struct {
		read string
		fi   fs.FileInfo
	}
	run := func(t *testing.T, files Files, tool string, args map[string]any) map[string]got {
		ws := newWS(t)
		writeFiles(t, ws.Root, map[string]string{"f.txt": "one\ntwo\n"})
		var mu sync.Mutex
		seen := map[string]got{}
		env := Env{Workspace: ws, Tracker: NewReadTracker(), Files: files,
			BeforeChange: func(abs, read string, fi fs.FileInfo) error {
				mu.Lock()
				defer mu.Unlock()
				if fi != nil {
					now, err := os.Stat(abs)
					if err != nil || !os.SameFile(fi, now) {
						t.Errorf("%s: the status handed is not the file's (%v)", abs, err)
					}
				}
				seen[filepath.Base(abs)] = got{read, fi}
				return nil
			}}
		byName := map[string]Tool{}
		for _, tl := range Builtins(env) {
			byName[tl.Name()] = tl
		}
		mustOK(t, call(t, byName[Read], map[string]any{"path": "f.txt"}))
		mustOK(t, call(t, byName[tool], args))
		return seen
	}
	for _, pc := range previewCalls {
		seen := run(t, nil, pc.tool, pc.args)
		if g := seen["f.txt"]; g.read != "one\ntwo\n" || g.fi == nil {
			t.Errorf("%s: hook got %q (status %v), want the file as read", pc.tool, g.read, g.fi != nil)
		}
	}
	seen := run(t, nil, Write, map[string]any{"path": "new.txt", "content": "x\n"})
	if g, ok := seen["new.txt"]; !ok || g.fi != nil || g.read != "" {
		t.Errorf("new file: hook got %+v", g)
	}
	seen = run(t, nil, Patch, map[string]any{"patch": "*** Begin Patch\n*** Update File: f.txt\n*** Move to: g.txt\n one\n-two\n+TWO\n*** End Patch"})
	if g := seen["f.txt"]; g.read != "one\ntwo\n" || g.fi == nil {
		t.Errorf("move source: hook got %q", g.read)
	}
	if g, ok := seen["g.txt"]; !ok || g.fi != nil {
		t.Errorf("move target: hook got %+v", g)
	}
	// Through an editor whose buffer of f.txt is the disk's: still no
	// status, as the text did not come from the disk.
	files := &bufferFiles{buffers: map[string]string{}}
	seen = run(t, files, Edit, map[string]any{"path": "f.txt", "old_string": "two", "new_string": "TWO"})
	if g := seen["f.txt"]; g.fi != nil {
		t.Errorf("through the editor: hook got a disk status")
	}
}
