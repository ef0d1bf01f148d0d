package tools

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
)

// patchFixture is a workspace holding files, all read by the model.
func patchFixture(t *testing.T, files map[string]string) *Workspace {
	t.Helper()
	ws := newWS(t)
	writeFiles(t, ws.Root, files)
	for p := range files {
		readPaths(t, ws, p)
	}
	return ws
}

// tree is every file below root: path → content.
func tree(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		out[filepath.ToSlash(rel)] = readFile(t, p)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func sameTree(t *testing.T, got, want map[string]string) {
	t.Helper()
	var keys []string
	for k := range got {
		keys = append(keys, k)
	}
	for k := range want {
		if _, ok := got[k]; !ok {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	for _, k := range keys {
		if got[k] != want[k] {
			t.Errorf("%s:\n got %q\nwant %q", k, got[k], want[k])
		}
	}
}

func TestPatchMultiFile(t *testing.T) {
	t.Parallel()
	ws := patchFixture(t, map[string]string{
		"src/a.go":  "package a\n\nfunc A() int {\n\treturn 1\n}\n",
		"old.txt":   "bye\n",
		"mv/from.c": "int x;\nint y;\n",
	})
	if err := os.Chmod(filepath.Join(ws.Root, "mv/from.c"), 0o600); err != nil {
		t.Fatal(err)
	}
	patch := `*** Begin Patch
*** Add File: docs/new.md
+# New
+
+text
*** Update File: src/a.go
@@ func A() int {
 func A() int {
-	return 1
+	return 2
 }
*** Delete File: old.txt
*** Update File: mv/from.c
*** Move to: mv/to.c
@@
 int x;
-int y;
+long y;
*** End Patch`
	res := call(t, builtin(t, ws, "patch"), map[string]any{"patch": patch})
	content := mustOK(t, res)
	sameTree(t, tree(t, ws.Root), map[string]string{
		"docs/new.md": "# New\n\ntext\n",
		"src/a.go":    "package a\n\nfunc A() int {\n\treturn 2\n}\n",
		"mv/to.c":     "int x;\nlong y;\n",
	})
	want := "patched 4 files:\nA docs/new.md (+3 -0)\nM src/a.go (+1 -1)\nD old.txt (+0 -1)\nR mv/from.c -> mv/to.c (+1 -1)"
	if content != want {
		t.Errorf("content:\n%s\nwant\n%s", content, want)
	}
	if !slices.Equal(res.Changed, []string{"docs/new.md", "src/a.go", "old.txt", "mv/from.c", "mv/to.c"}) {
		t.Errorf("Changed %q", res.Changed)
	}
	for _, h := range []string{"+++ b/docs/new.md", "--- a/src/a.go", "--- a/old.txt", "--- a/mv/from.c\n+++ b/mv/to.c"} {
		if !strings.Contains(res.Diff, h) {
			t.Errorf("diff lacks %q:\n%s", h, res.Diff)
		}
	}
	if fi, _ := os.Stat(filepath.Join(ws.Root, "mv/to.c")); fi.Mode().Perm() != 0o600 {
		t.Errorf("moved file mode %v", fi.Mode().Perm())
	}
	// The moved and added files count as seen; the deleted one is gone.
	mustOK(t, call(t, builtin(t, ws, "edit"), map[string]any{"path": "mv/to.c", "old_string": "long", "new_string": "short"}))
}

func TestPatchThirdFileFailsNothingWritten(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a1\na2\n", "b.txt": "b1\nb2\n", "c.txt": "c1\nc2\n"}
	ws := patchFixture(t, files)
	patch := "*** Begin Patch\n*** Update File: a.txt\n-a1\n+A1\n*** Delete File: b.txt\n*** Update File: c.txt\n@@ c2\n-nope\n+x\n*** Add File: d.txt\n+d\n*** End Patch"
	msg := failure(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": patch}))
	if !strings.HasPrefix(msg, "patch: Update File c.txt: hunk 1 (@@ c2): context not found") {
		t.Fatalf("message %q", msg)
	}
	sameTree(t, tree(t, ws.Root), files)
}

// A write failing half-way (a full disk) happens while the new contents are
// staged beside their targets: nothing visible has changed, and the staged
// files are removed.
func TestPatchWriteFailureChangesNothing(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "c.txt": "c\n", "m.txt": "m\n"}
	ws := patchFixture(t, files)
	p := builtin(t, ws, "patch").(patchTool)
	p.writeTemp = func(dir *os.Root, name string, data []byte, perm fs.FileMode) error {
		if strings.HasPrefix(name, ".c.txt.tmp-") {
			return errors.New("no space left on device")
		}
		return writeNewIn(dir, name, data, perm)
	}
	patch := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: new/n.txt\n+n\n*** Delete File: b.txt\n" +
		"*** Update File: m.txt\n*** Move to: moved.txt\n*** Update File: c.txt\n-c\n+C\n*** End Patch"
	msg := failure(t, call(t, p, map[string]any{"patch": patch}))
	if !strings.Contains(msg, "writing c.txt failed: no space left on device; nothing was changed") {
		t.Fatalf("message %q", msg)
	}
	got := tree(t, ws.Root)
	delete(got, "new/") // a directory made for a staged file stays
	sameTree(t, got, files)
}

func TestPatchAnchors(t *testing.T) {
	t.Parallel()
	src := "package p\n\nfunc x() {\n\tif err != nil {\n\t\treturn err\n\t}\n}\n\nfunc y() {\n\tif err != nil {\n\t\treturn err\n\t}\n}\n"
	tests := []struct{ name, patch, want string }{
		{"anchor picks the function", "*** Begin Patch\n*** Update File: p.go\n@@ func y\n \tif err != nil {\n-\t\treturn err\n+\t\treturn fmt.Errorf(\"y: %w\", err)\n \t}\n*** End Patch",
			strings.Replace(src, "func y() {\n\tif err != nil {\n\t\treturn err", "func y() {\n\tif err != nil {\n\t\treturn fmt.Errorf(\"y: %w\", err)", 1)},
		{"anchor scope beats later repeats", "*** Begin Patch\n*** Update File: p.go\n@@ func x() {\n \tif err != nil {\n-\t\treturn err\n+\t\tpanic(err)\n*** End Patch",
			strings.Replace(src, "\t\treturn err", "\t\tpanic(err)", 1)},
		{"stacked anchors", "*** Begin Patch\n*** Update File: p.go\n@@ func y() {\n@@ if err != nil {\n-\t\treturn err\n+\t\treturn nil\n*** End Patch",
			src[:strings.LastIndex(src, "return err")] + "return nil" + src[strings.LastIndex(src, "return err")+len("return err"):]},
		{"pure insertion after anchor", "*** Begin Patch\n*** Update File: p.go\n@@ func y() {\n+\tlog()\n*** End Patch",
			strings.Replace(src, "func y() {\n", "func y() {\n\tlog()\n", 1)},
		{"end of file", "*** Begin Patch\n*** Update File: p.go\n@@\n \t}\n-}\n+} // y\n*** End of File\n*** End Patch",
			strings.TrimSuffix(src, "}\n") + "} // y\n"},
		{"two hunks in order", "*** Begin Patch\n*** Update File: p.go\n@@\n-package p\n+package q\n@@ func y() {\n-\t\treturn err\n+\t\treturn nil\n*** End Patch",
			strings.Replace(src[:strings.LastIndex(src, "return err")], "package p", "package q", 1) + "return nil" + src[strings.LastIndex(src, "return err")+len("return err"):]},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := patchFixture(t, map[string]string{"p.go": src})
			mustOK(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": tt.patch}))
			if got := readFile(t, filepath.Join(ws.Root, "p.go")); got != tt.want {
				t.Errorf("got\n%s\nwant\n%s", got, tt.want)
			}
		})
	}
}

func TestPatchRefusals(t *testing.T) {
	t.Parallel()
	files := map[string]string{"p.go": "a\nx\nb\nx\nc\n", "q.txt": "q\n", "bin": "a\x00b\n"}
	tests := []struct{ patch, want string }{
		{"*** Begin Patch\n*** Update File: p.go\n@@\n-x\n+y\n*** End Patch", "patch: Update File p.go: hunk 1: context matches 2 places (lines 2, 4); add context lines or an @@ anchor line"},
		{"*** Begin Patch\n*** Update File: p.go\n@@\n-  x\n+y\n*** End Patch", "context matches 2 places (lines 2, 4) after ignoring indentation differences"},
		{"*** Begin Patch\n*** Add File: q.txt\n+x\n*** End Patch", "patch: Add File q.txt: the file already exists"},
		{"*** Begin Patch\n*** Update File: none.txt\n-a\n+b\n*** End Patch", "patch: Update File none.txt: no such file"},
		{"*** Begin Patch\n*** Delete File: none.txt\n*** End Patch", "patch: Delete File none.txt: no such file"},
		{"*** Begin Patch\n*** Update File: q.txt\n*** Move to: p.go\n-q\n+r\n*** End Patch", "Move to: p.go already exists"},
		{"*** Begin Patch\n*** Update File: bin\n-a\n+b\n*** End Patch", "looks like a binary file"},
		{"*** Begin Patch\n*** Update File: ../outside.txt\n-a\n+b\n*** End Patch", "path is outside the workspace"},
		{"*** Begin Patch\n*** Delete File: q.txt\n*** Update File: q.txt\n-q\n+r\n*** End Patch", "already appears earlier in this patch"},
		{"*** Begin Patch\n*** Update File: p.go\n@@ func nowhere\n-zzz\n+b\n*** End Patch", `hunk 1 (@@ func nowhere): anchor line "func nowhere" not found, and context not found`},
		{"*** Begin Patch\n*** Update File: p.go\n@@\n-a\n-zzz\n+b\n*** End Patch", "context not found"},
		{"hello", `line 1: the patch must start with "*** Begin Patch"`},
	}
	ws := newWS(t)
	writeFiles(t, ws.Root, files)
	readPaths(t, ws, "p.go", "q.txt")
	for _, tt := range tests {
		msg := failure(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": tt.patch}))
		if !strings.Contains(msg, tt.want) {
			t.Errorf("%q:\n got %q\nwant %q", tt.patch, msg, tt.want)
		}
	}
	sameTree(t, tree(t, ws.Root), files)
	// Unread files are refused like edit refuses them.
	writeFiles(t, ws.Root, map[string]string{"unread.txt": "u\n"})
	msg := failure(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": "*** Begin Patch\n*** Delete File: unread.txt\n*** End Patch"}))
	if msg != "patch: Delete File unread.txt: read unread.txt before editing it (use the read tool)" {
		t.Errorf("unread: %q", msg)
	}
}

func TestPatchLenientEnvelope(t *testing.T) {
	t.Parallel()
	body := "*** Update File: f.txt\n@@\n one\n-two\n+2\n"
	tests := map[string]string{
		"heredoc":               "apply_patch <<'EOF'\n*** Begin Patch\n" + body + "*** End Patch\nEOF\n",
		"fence":                 "```\n*** Begin Patch\n" + body + "*** End Patch\n```",
		"fence and heredoc":     "```bash\napply_patch <<\"PATCH\"\n*** Begin Patch\n" + body + "*** End Patch\nPATCH\n```\n",
		"missing first @@":      "*** Begin Patch\n*** Update File: f.txt\n one\n-two\n+2\n*** End Patch",
		"missing End Patch":     "*** Begin Patch\n" + body,
		"missing Begin":         body + "*** End Patch",
		"crlf":                  strings.ReplaceAll("*** Begin Patch\n"+body+"*** End Patch\n", "\n", "\r\n"),
		"bare blank context":    "*** Begin Patch\n*** Update File: f.txt\n@@\n-two\n+2\n\n three\n\n*** End Patch",
		"context without space": "*** Begin Patch\n*** Update File: f.txt\n@@\none\n-two\n+2\n*** End Patch",
		"unified header":        "*** Begin Patch\n*** Update File: f.txt\n@@ -1,3 +1,3 @@\n one\n-two\n+2\n*** End Patch",
	}
	for name, patch := range tests {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			ws := patchFixture(t, map[string]string{"f.txt": "one\ntwo\n\nthree\n"})
			mustOK(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": patch}))
			if got := readFile(t, filepath.Join(ws.Root, "f.txt")); got != "one\n2\n\nthree\n" {
				t.Errorf("file %q", got)
			}
		})
	}
}

func TestPatchPreservesFile(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, before, patch, want string }{
		{"crlf", "a\r\nb\r\nc\r\n", "@@\n a\n-b\n+B\n+B2\n", "a\r\nB\r\nB2\r\nc\r\n"},
		{"no final newline", "a\nb", "@@\n a\n-b\n+c\n+d\n", "a\nc\nd"},
		{"crlf no final newline", "a\r\nb", "@@\n-b\n+c\n*** End of File\n", "a\r\nc"},
		{"bom", "\ufeffa\nb\n", "@@\n-a\n+A\n", "\ufeffA\nb\n"},
		{"indent drift reindented", "func f() {\n\tif a {\n\t\tb()\n\t}\n}\n", "@@\n     if a {\n-        b()\n+        c()\n", "func f() {\n\tif a {\n\t\tc()\n\t}\n}\n"},
		{"append at end", "a\n", "@@\n+b\n", "a\nb\n"},
		{"same file twice", "a\nb\nc\n", "@@\n-a\n+A\n*** Update File: f.txt\n@@\n-c\n+C\n", "A\nb\nC\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := patchFixture(t, map[string]string{"f.txt": tt.before})
			patch := "*** Begin Patch\n*** Update File: f.txt\n" + tt.patch + "*** End Patch"
			mustOK(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": patch}))
			if got := readFile(t, filepath.Join(ws.Root, "f.txt")); got != tt.want {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}

func TestPatchTolerantNote(t *testing.T) {
	t.Parallel()
	ws := patchFixture(t, map[string]string{"f.py": "def f():\n    return 1\n"})
	patch := "*** Begin Patch\n*** Update File: f.py\n@@\n def f():\n-  return 1\n+  return 2\n*** End Patch"
	content := mustOK(t, call(t, builtin(t, ws, "patch"), map[string]any{"patch": patch}))
	if !strings.Contains(content, "M f.py (+1 -1); hunk 1 matched after ignoring indentation differences") {
		t.Errorf("content %q", content)
	}
	if got := readFile(t, filepath.Join(ws.Root, "f.py")); got != "def f():\n    return 2\n" {
		t.Errorf("file %q", got)
	}
}

func TestPatchApprovalReasonsAndSummary(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	p := builtin(t, ws, "patch")
	args := json.RawMessage(`{"patch":"*** Begin Patch\n*** Update File: in.txt\n*** Move to: ../out.txt\n-a\n+b\n*** Add File: a\n+x\n*** Add File: b\n+x\n*** Add File: c\n+x\n*** End Patch"}`)
	reasons := decodeCall(t, p, string(args)).Reasons
	if want := "path outside workspace: " + filepath.Join(filepath.Dir(ws.Root), "out.txt"); !slices.Equal(reasons, []string{want}) {
		t.Errorf("reasons %q, want %q", reasons, want)
	}
	if got := decodeCall(t, p, string(args)).Summary; got != "in.txt, a, b, +1 more" {
		t.Errorf("summary %q", got)
	}
}

// A patch stopped by a crash is finished or undone by RecoverPatches: all
// or nothing, and no staged file remains. The crash is simulated at each
// point of the commit by taking its steps by hand.
func TestPatchRecoveryAfterACrash(t *testing.T) {
	t.Parallel()
	files := map[string]string{"a.txt": "a\n", "b.txt": "b\n", "m.txt": "m\n"}
	patch := "*** Begin Patch\n*** Update File: a.txt\n-a\n+A\n*** Add File: new/n.txt\n+n\n*** Delete File: b.txt\n" +
		"*** Update File: m.txt\n*** Move to: moved.txt\n*** End Patch"
	patched := map[string]string{"a.txt": "A\n", "new/n.txt": "n\n", "moved.txt": "m\n"}
	for _, tc := range []struct {
		name    string
		commit  bool // the commit mark was written
		applied int  // steps taken before the crash
		want    map[string]string
	}{
		{"staged, not committed", false, 0, files},
		{"committed, nothing applied", true, 0, patched},
		{"committed, half applied", true, 2, patched},
		{"committed, all applied", true, 3, patched},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := patchFixture(t, files)
			journal := filepath.Join(t.TempDir(), "journal")
			p := builtin(t, ws, "patch").(patchTool)
			p.journal = patchJournal{dir: journal}
			c := decodeCall(t, p, string(must(json.Marshal(map[string]string{"patch": patch}))))
			changes, fail := p.plan(c.Args.(*patchArgs), false)
			if fail != nil {
				t.Fatal(fail.Content)
			}
			planTemps(changes)
			j, err := p.journal.begin(ws.Root, changes)
			if err != nil {
				t.Fatal(err)
			}
			if err := p.stage(changes); err != nil {
				t.Fatal(err)
			}
			if tc.commit {
				if err := j.commit(); err != nil {
					t.Fatal(err)
				}
			}
			for _, c := range changes[:tc.applied] {
				if err := p.apply(c); err != nil {
					t.Fatal(err)
				}
			}
			// While the patch is live, a second coder's start leaves it.
			if notes, err := RecoverPatches(ws, journal); err != nil || len(notes) != 0 {
				t.Fatalf("a live patch was recovered: %q %v", notes, err)
			}
			// The process dies here; the next start recovers.
			j.lock.Abandon()
			notes, err := RecoverPatches(ws, journal)
			if err != nil || len(notes) != 1 {
				t.Fatalf("notes %q, err %v", notes, err)
			}
			got := tree(t, ws.Root)
			for k := range got {
				if strings.Contains(k, ".tmp-") {
					t.Errorf("a staged file remains: %s", k)
				}
			}
			sameTree(t, got, tc.want)
			if left, _ := os.ReadDir(journal); len(left) != 0 {
				t.Errorf("journal files remain: %v", left)
			}
		})
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}
