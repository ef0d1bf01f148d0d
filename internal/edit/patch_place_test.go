package edit

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// How hunks are placed: anchors choose among places, the hunks' order
// settles repeated context, and whatever stays open is refused with the
// places named.
func TestHunkPlacement(t *testing.T) {
	t.Parallel()
	funcs := "package p\n\nfunc a() {\n\treturn nil\n}\n\nfunc b() {\n\treturn nil\n}\n\nfunc c() {\n}\n"
	tests := []struct {
		name, before, hunks  string
		after, note, refusal string
	}{
		{name: "an anchor that names no line leaves unique context alone",
			before: funcs, hunks: "@@ func nowhere() {\n-func b() {\n+func b2() {\n",
			after: strings.Replace(funcs, "func b() {", "func b2() {", 1), note: `its @@ line "func nowhere() {" names no line of the file; placed by its context alone`},
		{name: "an anchor that names no line with repeated context",
			before: funcs, hunks: "@@ func nowhere() {\n-\treturn nil\n+\treturn err\n",
			refusal: `context matches 2 places, and its @@ line "func nowhere() {" names no line of the file, (lines 4, 8)`},
		{name: "an anchor that names neither place",
			before: funcs, hunks: "@@ func c() {\n-\treturn nil\n+\treturn err\n",
			refusal: "context matches 2 places, none of them under its @@ line, (lines 4, 8)"},
		{name: "the anchor chooses among repeated context",
			before: funcs, hunks: "@@ func b() {\n-\treturn nil\n+\treturn err\n",
			after: strings.Replace(funcs, "b() {\n\treturn nil", "b() {\n\treturn err", 1)},
		{name: "insertions after a repeated anchor line, in order",
			before: funcs, hunks: "@@ return nil\n+\t// a\n@@ return nil\n+\t// b\n",
			after: strings.Replace(strings.Replace(funcs, "nil\n", "nil\n\t// a\n", 1), "b() {\n\treturn nil\n", "b() {\n\treturn nil\n\t// b\n", 1)},
		{name: "the anchor's place lies before the previous hunk",
			before: funcs, hunks: "@@ func b() {\n-\treturn nil\n+\treturn err\n@@ func a() {\n-}\n+} // a\n",
			refusal: "hunk 2 (@@ func a() {): context found at lines 9, 12, but not under its @@ line; under it, at line 5, it lies before the previous hunk"},
		{name: "context everywhere is not settled by order",
			before: strings.Repeat("x\n}\n", 100), hunks: "@@\n }\n+y\n@@\n }\n+z\n",
			refusal: "hunk 1: context matches 100 places (lines 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, …)"},
		{name: "every hunk fits only one place in order",
			before: strings.Repeat("x\n}\n", 3), hunks: "@@\n }\n+1\n@@\n }\n+2\n@@\n }\n+3\n",
			after: "x\n}\n1\nx\n}\n2\nx\n}\n3\n"},
		{name: "one hunk too many for the places",
			before: strings.Repeat("x\n}\n", 2), hunks: "@@\n }\n+1\n@@\n }\n+2\n@@\n }\n+3\n",
			refusal: "hunk 3: context found at line 2, before the previous hunk"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ops, err := ParsePatch(hdrBegin + "\n" + hdrUpdate + " f\n" + tt.hunks + hdrEnd + "\n")
			if err != nil {
				t.Fatal(err)
			}
			got, notes, err := applyHunks(tt.before, ops[0].hunks)
			switch {
			case tt.refusal != "":
				if err == nil || !strings.Contains(err.Error(), tt.refusal) {
					t.Errorf("got %v (%q), want a refusal with %q", err, got, tt.refusal)
				}
			case err != nil:
				t.Errorf("refused: %v", err)
			case got != tt.after:
				t.Errorf("got\n%q\nwant\n%q", got, tt.after)
			case tt.note != "" && !strings.Contains(strings.Join(notes, "; "), tt.note):
				t.Errorf("notes %q lack %q", notes, tt.note)
			}
		})
	}
}

// TestHunkOrderNeverGuesses cuts hunks in order from files of few distinct
// lines, so that their context repeats: each patch must apply exactly as
// cut or be refused, whatever the repeats.
func TestHunkOrderNeverGuesses(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(3, 4))
	applied := 0
	for range 3000 {
		lines := make([]string, 6+rng.IntN(30))
		for i := range lines {
			lines[i] = string(rune('a' + rng.IntN(3)))
		}
		var hunks strings.Builder
		want := append([]string(nil), lines...)
		for at := rng.IntN(3); at < len(lines); at += 1 + rng.IntN(6) {
			n := 1 + rng.IntN(3)
			if at+n > len(lines) {
				break
			}
			hunks.WriteString("@@\n")
			for k, l := range lines[at : at+n] {
				if k == n-1 {
					hunks.WriteString("-" + l + "\n+" + l + "'\n")
					want[at+k] = l + "'"
				} else {
					hunks.WriteString(" " + l + "\n")
				}
			}
			at += n
		}
		if hunks.Len() == 0 {
			continue
		}
		before := strings.Join(lines, "\n") + "\n"
		got, err := applyPatchHunks(before, hunks.String())
		if err != nil {
			continue
		}
		applied++
		if w := strings.Join(want, "\n") + "\n"; got != w {
			t.Fatalf("file\n%s\npatch\n%s\ngot\n%s\nwant\n%s", before, hunks.String(), got, w)
		}
	}
	t.Logf("%d of 3000 applied", applied)
	if applied < 100 {
		t.Errorf("only %d patches applied: the test says little", applied)
	}
}
