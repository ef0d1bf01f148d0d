package tools

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditCorpus runs testdata/corpus: realistic edits and patches on real
// files in a temp dir, modelled on what goes wrong with real code (CRLF C#
// files, Go with tabs, Markdown hard breaks, YAML, repeated @@ anchors,
// noisy old strings, the final newline and the BOM). Each case is
//
//	before     the file's bytes
//	args.json  an edit call, or
//	patch      a patch call
//	after      the file's exact bytes afterwards, or
//	error      lines that must each appear in the refusal (the file must
//	           then be unchanged)
//	case.json  {"path": file name, "note": text the success message must hold}
//
// A noisy case is either applied exactly or refused with a message: there
// is no third outcome.
func TestEditCorpus(t *testing.T) {
	t.Parallel()
	dirs, err := filepath.Glob(filepath.Join("testdata", "corpus", "*"))
	if err != nil || len(dirs) < 40 {
		t.Fatalf("want at least 40 cases in testdata/corpus, found %d (%v)", len(dirs), err)
	}
	for _, dir := range dirs {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			t.Parallel()
			runCorpusCase(t, dir)
		})
	}
}

func runCorpusCase(t *testing.T, dir string) {
	var opts struct{ Path, Note string }
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "case.json"))), &opts); err != nil {
		t.Fatal(err)
	}
	ws := newWS(t)
	before := readFile(t, filepath.Join(dir, "before"))
	writeFiles(t, ws.Root, map[string]string{opts.Path: before})
	readPaths(t, ws, opts.Path)
	var res Result
	if patch, err := os.ReadFile(filepath.Join(dir, "patch")); err == nil {
		res = call(t, builtin(t, ws, "patch"), map[string]any{"patch": string(patch)})
	} else {
		var args map[string]any
		if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "args.json"))), &args); err != nil {
			t.Fatal(err)
		}
		args["path"] = opts.Path
		res = call(t, builtin(t, ws, "edit"), args)
	}
	got := readFile(t, filepath.Join(ws.Root, opts.Path))
	if want, err := os.ReadFile(filepath.Join(dir, "error")); err == nil {
		msg := failure(t, res)
		for _, line := range strings.Split(string(want), "\n") {
			if line != "" && !strings.Contains(msg, line) {
				t.Errorf("refusal lacks %q:\n%s", line, msg)
			}
		}
		if got != before {
			t.Errorf("a refused call changed the file:\n%q", got)
		}
		return
	}
	content := mustOK(t, res)
	if want := readFile(t, filepath.Join(dir, "after")); got != want {
		t.Errorf("file:\n%q\nwant\n%q", got, want)
	}
	if opts.Note != "" && !strings.Contains(content, opts.Note) {
		t.Errorf("message %q lacks %q", content, opts.Note)
	}
}
