package edit

import (
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzEditMatch: for any file, old and new text the ladder never panics,
// and an applied edit changes only the region it reports.
func FuzzEditMatch(f *testing.F) {
	// The corpus's edit cases (its patch cases have no args.json).
	dirs, _ := filepath.Glob(filepath.Join("testdata", "corpus", "*"))
	for _, dir := range dirs {
		before, err1 := os.ReadFile(filepath.Join(dir, "before"))
		raw, err2 := os.ReadFile(filepath.Join(dir, "args.json"))
		var a struct {
			OldString  string `json:"old_string"`
			NewString  string `json:"new_string"`
			ReplaceAll bool   `json:"replace_all"`
		}
		if err1 != nil || err2 != nil || json.Unmarshal(raw, &a) != nil {
			continue
		}
		f.Add(string(before), a.OldString, a.NewString, a.ReplaceAll)
	}
	f.Add("a\r\n  b \r\n\tc\r\n", "b\nc", "x\n  y", false)
	f.Add("x…y “z” a—b\u00a0c\n", "y \"z\" a-b c", "q", false)
	f.Fuzz(func(t *testing.T, content, old, repl string, replaceAll bool) {
		if old == "" {
			return
		}
		checkEditInvariants(t, content, old, repl, replaceAll)
	})
}

// FuzzParsePatch: the parser never panics, and what it parses survives
// being written out canonically and parsed again.
func FuzzParsePatch(f *testing.F) {
	f.Add("*** Begin Patch\n*** Add File: a\n+x\n*** Update File: b\n*** Move to: c\n@@ f\n@@ g\n a\n-b\n+c\n*** End of File\n*** Delete File: d\n*** End Patch")
	f.Add("apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: f\n one\n\n-two\n+2\nEOF")
	f.Add("```\n*** Update File: f\n@@ -1,2 +1,2 @@ func x\n-a\r\n+b\n```")
	f.Add("*** Begin Patch\n*** Update File: f\n*** End Patch")
	f.Fuzz(func(t *testing.T, text string) {
		ops, err := ParsePatch(text)
		if err != nil || !canonicalizable(ops) {
			return
		}
		again, err := ParsePatch(renderPatch(ops))
		if err != nil {
			t.Fatalf("canonical form does not parse: %v\n%s", err, renderPatch(ops))
		}
		if !reflect.DeepEqual(ops, again) {
			t.Fatalf("round trip changed the patch:\n%#v\n%#v", ops, again)
		}
	})
}

// FuzzApplyHunks: applying any parsed Update to any file never panics, and
// a failure names the hunk.
func FuzzApplyHunks(f *testing.F) {
	f.Add("a\r\nb\r\n", "@@ a\n-b\n+c\n")
	f.Add("func x() {\n\treturn\n}\n", "@@ func x\n@@ return\n-    return\n+    return nil\n*** End of File\n")
	f.Add("x", "+y\n")
	f.Fuzz(func(t *testing.T, content, hunks string) {
		ops, err := ParsePatch("*** Begin Patch\n*** Update File: f\n" + hunks)
		if err != nil || ops[0].Kind != UpdateFile {
			return
		}
		if _, _, err := ops[0].Apply(content); err != nil && !strings.HasPrefix(err.Error(), "hunk ") {
			t.Fatalf("error %q does not name the hunk", err)
		}
	})
}

// renderPatch writes ops in the canonical form: removed lines, then added
// ones (context becomes both, which parses back the same).
func renderPatch(ops []FileOp) string {
	var b strings.Builder
	b.WriteString(hdrBegin + "\n")
	for _, op := range ops {
		switch op.Kind {
		case AddFile:
			b.WriteString(hdrAdd + " " + op.Path + "\n")
			for _, l := range splitLines(op.Add) {
				b.WriteString("+" + l + "\n")
			}
		case DeleteFile:
			b.WriteString(hdrDelete + " " + op.Path + "\n")
		case UpdateFile:
			b.WriteString(hdrUpdate + " " + op.Path + "\n")
			if op.MoveTo != "" {
				b.WriteString(hdrMove + " " + op.MoveTo + "\n")
			}
			for _, h := range op.hunks {
				renderHunk(&b, h)
			}
		}
	}
	b.WriteString(hdrEnd + "\n")
	return b.String()
}

func renderHunk(b *strings.Builder, h patchHunk) {
	b.WriteString("@@\n")
	for _, a := range h.anchors {
		b.WriteString("@@ " + a + "\n")
	}
	for k, l := range h.lines {
		if k >= len(h.lines)-h.bareTail && l.text == "" {
			b.WriteString("\n") // a bare blank line before *** End of File
		} else {
			b.WriteString(string(l.op) + l.text + "\n")
		}
		if l.noEOL {
			b.WriteString("\\ No newline at end of file\n")
		}
	}
	if h.eof {
		b.WriteString(hdrEOF + "\n")
	}
}

// canonicalizable leaves out what the canonical form cannot carry: CR
// inside a line (CRLF is read as LF), anchors that read differently once
// reparsed, and added files whose lines split differently.
func canonicalizable(ops []FileOp) bool {
	for _, op := range ops {
		if strings.ContainsRune(op.Path+op.MoveTo+op.Add, '\r') {
			return false
		}
		for _, h := range op.hunks {
			for _, a := range h.anchors {
				if parseAnchor("@@ "+a) != a || strings.ContainsRune(a, '\r') {
					return false
				}
			}
			for _, l := range h.lines {
				if strings.ContainsRune(l.text, '\r') {
					return false
				}
			}
		}
	}
	return true
}

// checkEditInvariants applies an edit and checks what must hold for any
// input: no panic, and only the reported region changes.
func checkEditInvariants(t *testing.T, content, old, repl string, replaceAll bool) {
	t.Helper()
	out, merr := applyEdit(content, old, repl, replaceAll)
	if merr != nil || replaceAll {
		return
	}
	m := out.m
	if m.start < 0 || m.start > m.end || m.end > len(content) {
		t.Fatalf("region [%d,%d) outside a %d-byte file", m.start, m.end, len(content))
	}
	want := content[:m.start] + m.repl + content[m.end:]
	if m.end == len(content) && content != "" {
		// Only the final newline may differ, and only to keep the file's.
		keep := endsWithEOL(content)
		if w, change := finalNewlineWish(old, repl); change {
			keep = w
		}
		if out.Text != setFinalNewline(want, keep, fileEOL(content)) {
			t.Fatalf("edit touched bytes outside its region or the final newline:\n got %q\nwant %q", out.Text, want)
		}
	} else if out.Text != want {
		t.Fatalf("edit touched bytes outside its region:\n got %q\nwant %q", out.Text, want)
	}
	if !m.rung.tolerant && content[m.start:m.end] != old && content[m.start:m.end] != trimEOL(old) {
		t.Fatalf("exact rung matched %q, not %q", content[m.start:m.end], old)
	}
	// An edit of the final newline prefers a tolerant match at the end.
	_, eofEdit := finalNewlineWish(old, repl)
	if i := strings.Index(content, old); i >= 0 && m.rung.tolerant && !splitsCRLF(content, i, i+len(old)) && !eofEdit {
		t.Fatalf("an exact occurrence at %d was passed over for rung %q", i, m.rung.name)
	}
	if splitsCRLF(content, m.start, m.end) {
		t.Fatalf("the match [%d,%d) splits a CRLF pair", m.start, m.end)
	}
	// What a tolerant rung replaced reads like old once normalised.
	if r := m.rung; r.tolerant && !r.rewrites() {
		searched, _, _ := r.transform(old, repl)
		got, want := buildView(content[m.start:m.end], r.opts, false).text, buildView(searched, r.opts, false).text
		// old_string may end with the line break the file lacks at its end.
		if got != want && got != trimEOL(want) {
			t.Fatalf("rung %q replaced %q, which normalises to %q, not %q", r.name, content[m.start:m.end], got, want)
		}
	}
	// Whole lines touched, all CRLF: no bare LF may come in.
	end := m.end
	if nl := strings.IndexByte(content[end:], '\n'); nl >= 0 && (end == 0 || content[end-1] != '\n') {
		end += nl + 1
	}
	region := content[lineStartBefore(content, m.start):end]
	if n := strings.Count(region, "\n"); n > 0 && n == strings.Count(region, "\r\n") && strings.Count(m.repl, "\n") != strings.Count(m.repl, "\r\n") {
		t.Fatalf("CRLF region %q replaced with bare LF: %q", region, m.repl)
	}
}

// TestLadderRandomDrift feeds the ladder what fuzzing rarely builds: a
// file of code-like lines and an old_string cut from it with the drift
// models add (line endings, whitespace, indentation, punctuation, escapes,
// blank lines), and checks the invariants on each.
func TestLadderRandomDrift(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "b()", "x := 1", "“q”", "a — b", "wait…", "\u00a0z", "", "}", "if c {"}
	pick := func(s []string) string { return s[rng.IntN(len(s))] }
	drifts := []func(string) string{
		normaliseEOL,
		func(s string) string { return strings.ReplaceAll(s, " \n", "\n") },
		func(s string) string { return strings.ReplaceAll(s, "\n\t", "\n    ") },
		func(s string) string { return strings.ReplaceAll(s, "\n  ", "\n") },
		func(s string) string { return buildView(s, normOpts{unicode: true}, false).text },
		func(s string) string { return strings.ReplaceAll(s, "\n", `\n`) },
		func(s string) string { return "\n" + s + "\n\n" },
	}
	for range 20000 {
		var b strings.Builder
		for range 1 + rng.IntN(8) {
			b.WriteString(pick([]string{"", " ", "  ", "\t", "\t\t"}) + pick(pieces) + pick([]string{"", " ", "\t"}) + pick([]string{"\n", "\r\n"}))
		}
		content := b.String()
		i := rng.IntN(len(content))
		j := i + rng.IntN(len(content)-i) + 1
		old := content[i:j]
		for range rng.IntN(3) {
			old = drifts[rng.IntN(len(drifts))](old)
		}
		checkEditInvariants(t, content, old, pick(pieces)+pick([]string{"\n", "\n  y\n", ""}), false)
	}
}
