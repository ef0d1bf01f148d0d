package edit

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestEditHistory measures edit and patch on real history: each commit of
// the repositories named in CODER_EDIT_HISTORY becomes the patch call a
// model would make (one per commit) and the edit calls (one per hunk, with
// more context until old_string is unique), applied in memory to the
// parent revision and compared byte for byte with the commit. Every kind
// of slip in historyNoises is measured too. A result is correct, refused
// (the file is left alone) or wrong; wrong must never happen.
//
//	CODER_EDIT_HISTORY=/path/to/repo[:crlf],...   (:crlf checks files out with CRLF)
//	CODER_EDIT_HISTORY_COMMITS=50                 (newest non-merge commits per repo)
//	CODER_EDIT_HISTORY_PICK=hunks                 (half of them newest, half with the most hunks)
//	go test ./internal/edit -run TestEditHistory -v
func TestEditHistory(t *testing.T) {
	spec := os.Getenv("CODER_EDIT_HISTORY")
	if spec == "" {
		t.Skip("set CODER_EDIT_HISTORY=repo[:crlf],… to measure edit and patch on real commits")
	}
	n := 50
	if s := os.Getenv("CODER_EDIT_HISTORY_COMMITS"); s != "" {
		n, _ = strconv.Atoi(s)
	}
	var total historyTally
	var report strings.Builder
	for _, entry := range strings.Split(spec, ",") {
		dir, crlf := strings.CutSuffix(entry, ":crlf")
		tally := measureRepo(t, dir, n, crlf)
		name := filepath.Base(filepath.Dir(dir))
		if crlf {
			name += " (CRLF)"
		}
		tally.write(&report, name)
		total.add(tally)
	}
	total.write(&report, "all")
	t.Log("\n" + report.String())
	for _, k := range total.kinds {
		if c := total.counts[k]; c.wrong > 0 {
			t.Errorf("%s: %d wrong results", k, c.wrong)
		}
	}
}

// outcome counts one kind of measurement.
// slipped counts the calls the noise changed at all.
type outcome struct{ correct, refused, wrong, erased, slipped int }

func (o *outcome) add(p outcome) {
	o.correct, o.refused, o.wrong, o.erased = o.correct+p.correct, o.refused+p.refused, o.wrong+p.wrong, o.erased+p.erased
	o.slipped += p.slipped
}

type historyTally struct {
	commits, skipped int
	kinds            []string
	counts           map[string]*outcome
}

func (h *historyTally) count(kind string) *outcome {
	if h.counts == nil {
		h.counts = map[string]*outcome{}
	}
	if h.counts[kind] == nil {
		h.counts[kind] = &outcome{}
		h.kinds = append(h.kinds, kind)
	}
	return h.counts[kind]
}

func (h *historyTally) add(o historyTally) {
	h.commits, h.skipped = h.commits+o.commits, h.skipped+o.skipped
	for _, k := range o.kinds {
		h.count(k).add(*o.counts[k])
	}
}

func (h historyTally) write(b *strings.Builder, name string) {
	fmt.Fprintf(b, "%s: %d commits, %d the patch format cannot express\n", name, h.commits, h.skipped)
	fmt.Fprintf(b, "  %-38s %8s %8s %6s %8s %8s\n", "", "correct", "refused", "wrong", "erased", "slipped")
	for _, k := range h.kinds {
		c := h.counts[k]
		fmt.Fprintf(b, "  %-38s %8d %8d %6d %8d %8d\n", k, c.correct, c.refused, c.wrong, c.erased, c.slipped)
	}
}

// measureRepo runs every commit of one repository.
func measureRepo(t *testing.T, dir string, n int, crlf bool) historyTally {
	t.Helper()
	repo := openHistory(t, dir)
	shas, err := repo.commits(n, os.Getenv("CODER_EDIT_HISTORY_PICK") == "hunks")
	if err != nil {
		t.Errorf("%s: %v", dir, err) // the other repositories are still reported
		return historyTally{}
	}
	var tally historyTally
	for _, sha := range shas {
		c, err := repo.load(sha)
		if err != nil {
			t.Fatalf("%s %s: %v", dir, sha, err)
		}
		tally.commits++
		if c.skip != "" {
			tally.skipped++
			continue
		}
		if crlf {
			for _, m := range []map[string]string{c.before, c.after} {
				for p, s := range m {
					m[p] = windowsCheckout(s)
				}
			}
		}
		measureCommit(t, filepath.Base(filepath.Dir(dir)), c, &tally)
	}
	return tally
}

func measureCommit(t *testing.T, repo string, c historyCommit, tally *historyTally) {
	styles := map[string]fileStyle{}
	for p, s := range c.before {
		styles[p] = styleOf(s)
	}
	// git's hunks as they are; then with the context a model adds to make
	// each hunk unique; then also with the @@ lines a model writes. The
	// slips are measured on the last.
	for _, v := range []struct {
		name string
		c    historyCommit
	}{
		{"patch, git's hunks as they are", c},
		{"patch, git's @@ lines, unique context", withModelHunks(c, false)},
	} {
		text, _ := renderPatchCall(v.c, noise{}, styles)
		got, why := applyPatchCall(text, v.c, v.name)
		tally.count(v.name).tallyResult(t, repo, c.sha, v.name, got, why, text)
	}
	c = withModelHunks(c, true)
	clean, _ := renderPatchCall(c, noise{}, styles)
	for _, nz := range append([]noise{{name: "clean"}}, historyNoises...) {
		text, erased := renderPatchCall(c, nz, styles)
		o := tally.count("patch, " + nz.name)
		if text != clean {
			o.slipped++
		}
		if erased {
			o.erased++
		} else {
			got, why := applyPatchCall(text, c, nz.name)
			o.tallyResult(t, repo, c.sha, "patch "+nz.name, got, why, text)
		}
		if nz.patchOnly {
			continue
		}
		if got, why, erased, any := editCommit(t, repo, c, nz, styles); any {
			o = tally.count("edit, " + nz.name)
			if editsSlip(c, nz, styles) {
				o.slipped++
			}
			if erased {
				o.erased++
			} else {
				o.tallyResult(t, repo, c.sha, "edit "+nz.name, got, why, "")
			}
		}
	}
}

// editCommit makes the edit calls of every changed file of a commit; any
// is false when the commit changes no existing file.
func editCommit(t *testing.T, repo string, c historyCommit, nz noise, styles map[string]fileStyle) (got map[string]string, why string, erased, any bool) {
	got = map[string]string{}
	for _, f := range c.files {
		if f.kind != UpdateFile {
			continue
		}
		any = true
		calls, ok := historyEdits(c.before[f.path], f.hunks)
		if !ok {
			t.Errorf("%s %s %s: the diff does not fit the file", repo, c.sha[:8], f.path)
			return nil, "", false, false
		}
		after, refused, wiped := applyEditCalls(c.before[f.path], calls, nz, styles[f.path])
		switch {
		case wiped:
			return nil, "", true, true
		case refused != "":
			return nil, f.path + ": " + refused, false, true
		case after != c.after[f.path]:
			reportWrong("edit "+nz.name, c.sha, f.path, c.before[f.path], c.after[f.path], after, renderCalls(calls, nz, styles[f.path]))
			return nil, "", false, true
		}
		got[f.path] = after
	}
	return got, "", false, any
}

// tallyResult classifies one result against the commit's contents.
func (o *outcome) tallyResult(t *testing.T, repo, sha, what string, got map[string]string, why, _ string) {
	switch {
	case why != "":
		o.refused++
		t.Logf("REFUSED %s %s %s: %s", repo, sha[:8], what, strings.SplitN(why, "\n", 2)[0])
	case got == nil:
		o.wrong++
	default:
		o.correct++
	}
}

// applyPatchCall applies a patch call to the commit's parent in memory; a
// result that differs from the commit is returned as nil.
func applyPatchCall(text string, c historyCommit, label string) (map[string]string, string) {
	ops, err := ParsePatch(text)
	if err != nil {
		return nil, err.Error()
	}
	out := map[string]string{}
	for _, op := range ops {
		switch op.Kind {
		case AddFile:
			out[op.Path] = op.Add
		case DeleteFile:
			out[op.Path] = ""
		case UpdateFile:
			after, _, err := op.Apply(c.before[op.Path])
			if err != nil {
				return nil, op.Path + ": " + err.Error()
			}
			out[op.Path] = after
		}
	}
	for p, got := range out {
		want := c.after[p]
		if _, added := c.before[p]; !added {
			want = normaliseEOL(want) // a new file is what the model writes
		}
		if got != want {
			reportWrong("patch "+label, c.sha, p, c.before[p], want, got, text)
			return nil, ""
		}
	}
	return out, ""
}

// applyEditCalls applies a file's edit calls in order, as edit does.
func applyEditCalls(before string, calls []editCall, nz noise, s fileStyle) (string, string, bool) {
	content := before
	for _, c := range calls {
		clean, _ := renderEdit(c, noise{}, s)
		at := strings.Count(normaliseEOL(content)[:max(strings.Index(normaliseEOL(content), clean), 0)], "\n")
		if nz.erases(c.old, c.new, s, tabsAround(content, at, at+len(c.old))) {
			return "", "", true
		}
		old, repl := renderEdit(c, nz, s)
		if elsewhere(content, strings.Split(clean, "\n"), strings.Split(old, "\n")) {
			return "", "", true
		}
		if old == "" {
			if content != "" {
				return "", "old_string is empty", false
			}
			content = repl
			continue
		}
		out, merr := Replace(content, old, repl, false)
		if merr != nil {
			return "", merr.Explain("f"), false
		}
		if out.Text == content {
			return "", "the edit changes nothing", false
		}
		content = out.Text
	}
	return content, "", false
}

// reportWrong writes a wrong result where a person can look at it.
func reportWrong(label, sha, path, before, want, got, call string) {
	dir := os.Getenv("CODER_EDIT_HISTORY_WRONG")
	if dir == "" {
		return
	}
	d := filepath.Join(dir, strings.NewReplacer(" ", "_", "<->", "-", "+", "p").Replace(label), sha[:8]+"-"+strings.ReplaceAll(path, "/", "_"))
	_ = os.MkdirAll(d, 0o755)
	for name, s := range map[string]string{"before": before, "want": want, "got": got, "call": call} {
		_ = os.WriteFile(filepath.Join(d, name), []byte(s), 0o644)
	}
}

// renderCalls shows edit calls the way they were made.
func renderCalls(calls []editCall, nz noise, s fileStyle) string {
	var b strings.Builder
	for _, c := range calls {
		old, repl := renderEdit(c, nz, s)
		fmt.Fprintf(&b, "=== old_string\n%s\n=== new_string\n%s\n", old, repl)
	}
	return b.String()
}

// editsSlip reports whether the noise changes any edit call of the commit.
func editsSlip(c historyCommit, nz noise, styles map[string]fileStyle) bool {
	for _, f := range c.files {
		if f.kind != UpdateFile {
			continue
		}
		calls, _ := historyEdits(c.before[f.path], f.hunks)
		for _, call := range calls {
			o1, n1 := renderEdit(call, nz, styles[f.path])
			o2, n2 := renderEdit(call, noise{}, styles[f.path])
			if o1 != o2 || n1 != n2 {
				return true
			}
		}
	}
	return false
}

// withModelHunks is the commit with uniqueContext applied to its hunks,
// and with anchors the @@ lines modelAnchors sets.
func withModelHunks(c historyCommit, anchors bool) historyCommit {
	files := make([]diffFile, len(c.files))
	for i, f := range c.files {
		files[i] = f
		if f.kind == UpdateFile {
			files[i] = uniqueContext(c.before[f.path], f)
			if anchors {
				files[i] = modelAnchors(c.before[f.path], files[i])
			}
		}
	}
	c.files = files
	return c
}
