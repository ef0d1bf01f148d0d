package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

// editCase is one directory of testdata/edit: a real model mistake.
//
//	before     the file's bytes
//	args.json  the edit arguments (path is added)
//	after      the file's exact bytes afterwards, or
//	error      lines that must each appear in the failure (the file must
//	           then be unchanged)
//	case.json  optional editCaseOpts
type editCaseOpts struct {
	Path   string `json:"path"`   // file name, default f.txt
	Mode   string `json:"mode"`   // octal, default 0644; kept afterwards
	Unread bool   `json:"unread"` // do not read the file first
	Stale  bool   `json:"stale"`  // change it on disk after reading
	Note   string `json:"note"`   // must appear in the success message
}

func TestEditCases(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "edit", "*"))
	if err != nil || len(dirs) < 40 {
		t.Fatalf("want at least 40 cases in testdata/edit, found %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runEditCase(t, dir)
		})
	}
}

func runEditCase(t *testing.T, dir string) {
	opts := editCaseOpts{Path: "f.txt", Mode: "0644"}
	if b, err := os.ReadFile(filepath.Join(dir, "case.json")); err == nil {
		if err := json.Unmarshal(b, &opts); err != nil {
			t.Fatal(err)
		}
	}
	var args map[string]any
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "args.json"))), &args); err != nil {
		t.Fatal(err)
	}
	args["path"] = opts.Path
	ws := newWS(t)
	path := filepath.Join(ws.Root, opts.Path)
	before := readFile(t, filepath.Join(dir, "before"))
	mode, err := strconv.ParseUint(opts.Mode, 8, 32)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(before), os.FileMode(mode)); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, os.FileMode(mode)); err != nil {
		t.Fatal(err)
	}
	if !opts.Unread {
		call(t, builtin(t, ws, "read"), map[string]any{"path": opts.Path}) // binary files are refused
	}
	if opts.Stale {
		before += "// changed by someone else\n"
		if err := os.WriteFile(path, []byte(before), os.FileMode(mode)); err != nil {
			t.Fatal(err)
		}
		later := time.Now().Add(2 * time.Second)
		_ = os.Chtimes(path, later, later)
	}
	res := call(t, builtin(t, ws, "edit"), args)
	if want, err := os.ReadFile(filepath.Join(dir, "error")); err == nil {
		checkEditRefused(t, res, string(want), readFile(t, path), before)
		return
	}
	checkEditApplied(t, res, opts, readFile(t, filepath.Join(dir, "after")), readFile(t, path))
	if fi, err := os.Stat(path); err != nil || uint64(fi.Mode().Perm()) != mode {
		t.Errorf("mode %v, want %s", fi.Mode().Perm(), opts.Mode)
	}
	if entries, _ := os.ReadDir(ws.Root); len(entries) != 1 {
		t.Errorf("stray files: %v", entries)
	}
}

func checkEditRefused(t *testing.T, res Result, want, got, before string) {
	t.Helper()
	msg := failure(t, res)
	for _, line := range strings.Split(want, "\n") {
		if line != "" && !strings.Contains(msg, line) {
			t.Errorf("error lacks %q:\n%s", line, msg)
		}
	}
	if got != before {
		t.Errorf("a refused edit changed the file:\n%q\nwas\n%q", got, before)
	}
}

func checkEditApplied(t *testing.T, res Result, opts editCaseOpts, want, got string) {
	t.Helper()
	content := mustOK(t, res)
	if got != want {
		t.Errorf("file:\n%q\nwant\n%q", got, want)
	}
	if opts.Note != "" && !strings.Contains(content, opts.Note) {
		t.Errorf("message %q lacks %q", content, opts.Note)
	}
	if res.Diff == "" || !slices.Equal(res.Changed, []string{opts.Path}) {
		t.Errorf("diff %q, changed %q", res.Diff, res.Changed)
	}
}
