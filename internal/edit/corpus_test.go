package edit

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEditCorpus runs testdata/corpus: realistic edits and patches,
// modelled on what goes wrong with real code (CRLF C# files, Go with tabs,
// Markdown hard breaks, YAML, repeated @@ anchors, noisy old strings, the
// final newline and the BOM), through the engine the edit and patch tools
// call (their own tests check that a refusal leaves the file alone). Each
// case is
//
//	before     the file's bytes
//	args.json  an edit call, or
//	patch      a patch call
//	after      the file's exact bytes afterwards, or
//	error      lines that must each appear in the refusal
//	case.json  {"path": file name, "note": text the success notes must hold}
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
	before := readFile(t, filepath.Join(dir, "before"))
	got, msg, refused := corpusCall(t, dir, opts.Path, before)
	if want, err := os.ReadFile(filepath.Join(dir, "error")); err == nil {
		if !refused {
			t.Fatalf("applied, want a refusal; file:\n%q", got)
		}
		for _, line := range strings.Split(string(want), "\n") {
			if line != "" && !strings.Contains(msg, line) {
				t.Errorf("refusal lacks %q:\n%s", line, msg)
			}
		}
		return
	}
	if refused {
		t.Fatalf("refused: %s", msg)
	}
	if want := readFile(t, filepath.Join(dir, "after")); got != want {
		t.Errorf("file:\n%q\nwant\n%q", got, want)
	}
	if opts.Note != "" && !strings.Contains(msg, opts.Note) {
		t.Errorf("message %q lacks %q", msg, opts.Note)
	}
}

// corpusCall applies a case's patch or edit call to before, as the tools
// do: the new content and the notes, or the refusal.
func corpusCall(t *testing.T, dir, path, before string) (after, msg string, refused bool) {
	if patch, err := os.ReadFile(filepath.Join(dir, "patch")); err == nil {
		ops, err := ParsePatch(string(patch))
		if err != nil {
			return "", err.Error(), true
		}
		if len(ops) != 1 || ops[0].Kind != UpdateFile || ops[0].Path != path {
			t.Fatalf("a corpus patch updates the case's one file, got %+v", ops)
		}
		after, notes, err := ops[0].Apply(before)
		if err != nil {
			return "", err.Error(), true
		}
		return after, strings.Join(notes, "; "), false
	}
	var a struct {
		OldString  string `json:"old_string"`
		NewString  string `json:"new_string"`
		ReplaceAll bool   `json:"replace_all"`
	}
	if err := json.Unmarshal([]byte(readFile(t, filepath.Join(dir, "args.json"))), &a); err != nil {
		t.Fatal(err)
	}
	out, merr := Replace(before, a.OldString, a.NewString, a.ReplaceAll)
	if merr != nil {
		return "", merr.Explain(path), true
	}
	return out.Text, out.Note(), false
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
