package edit

import (
	"strings"
	"testing"
)

// Edits on code nobody tuned the engine for: each case is a change a model
// expresses as a patch and as an edit, on a file whose conventions the
// model's texts drift from. Each must apply exactly as asked; and on the
// file written twice over (every place of its context doubled), each must
// be refused, since then two choices of places fit.

type expressedCase struct {
	name, before, after string
	patch               string // the Update section's hunks; "" when there is no patch form
	old, new            string // the edit call; old "" when there is no edit form
	// editRefused: the edit form names no order, so it is refused where
	// only the hunks' order makes the place unique.
	editRefused string
}

var expressedCases = []expressedCase{
	{
		// A: git's anchor is the nearest line its rule matched, here the
		// constructor; a sibling method lies between it and the hunk.
		name:   "A anchor is evidence, not scope",
		before: "class T {\n  public T() {\n  }\n\n  public abstract void write(int x);\n\n  /**\n   * Writes x.\n   */\n  public abstract void put(int x);\n}\n",
		patch:  "@@ public T() {\n   /**\n-   * Writes x.\n+   * Writes x once.\n",
		old:    "   * Writes x.\n",
		new:    "   * Writes x once.\n",
		after:  "class T {\n  public T() {\n  }\n\n  public abstract void write(int x);\n\n  /**\n   * Writes x once.\n   */\n  public abstract void put(int x);\n}\n",
	},
	{
		// B: two identical hunks; only the first place for the first and
		// the second for the second keeps the hunks in order.
		name:        "B repeated context placed by the hunks' order",
		before:      "f() {\n  if a; then\n        x=1\n  fi\n  if a; then\n        x=1\n  fi\n}\n",
		patch:       "@@ f() {\n   if a; then\n-        x=1\n+         x=1\n   fi\n@@ f() {\n   if a; then\n-        x=1\n+         x=1\n   fi\n",
		old:         "  if a; then\n        x=1\n  fi\n",
		new:         "  if a; then\n         x=1\n  fi\n",
		editRefused: "matches 2 places",
		after:       "f() {\n  if a; then\n         x=1\n  fi\n  if a; then\n         x=1\n  fi\n}\n",
	},
	{
		// B: a later hunk's unique place rules out the second place of an
		// earlier one.
		name:   "B a later hunk fixes an earlier one's place",
		before: "a\nx\nb\nx\nc\n",
		patch:  "@@\n-x\n+y\n@@\n-b\n+B\n",
		after:  "a\ny\nB\nx\nc\n",
	},
	{
		// C: the model removes and re-adds a line it copied without its
		// whitespace: it asks for the line as it wrote it.
		name:   "C whitespace-only change kept",
		before: "x = 1\n  \ny = 2\n",
		patch:  "@@\n-x = 1\n-\n+x = 10\n+\n y = 2\n",
		after:  "x = 10\n\ny = 2\n",
	},
	{
		// C: a quote the model changes on purpose stays, although the
		// same character in its copy of another line was a slip.
		name:   "C punctuation-only change kept",
		before: "don't stop\nit's here\n",
		patch:  "@@\n don’t stop\n-it's here\n+it’s here\n",
		old:    "don’t stop\nit's here",
		new:    "don’t stop\nit’s here",
		after:  "don't stop\nit’s here\n",
	},
	{
		// D: old_string ends inside a blank line; the whitespace it
		// covers goes with it, as after an exact match.
		name:   "D whitespace-only last partial line removed",
		before: "  f('a')\n    \n  g\n",
		patch:  "@@\n-  f(‘a’)\n-    \n+  f('b')\n",
		old:    "  f(‘a’)\n    ",
		new:    "  f('b')",
		after:  "  f('b')\n  g\n",
	},
	{
		name:   "D whitespace-only first partial line removed",
		before: "  g\n    \n  f('a')\n",
		old:    "    \n  f(‘a’)",
		new:    "  f('b')",
		after:  "  g\n  f('b')\n",
	},
	{
		// E: the model wrote tabs for the file's spaces in one hunk; a
		// hunk with nothing indented to learn from carries the same slip,
		// although one stray line of the file starts with a tab.
		name:   "E added lines take the prevailing indentation when the call shows drift",
		before: spacesWithStrayTab,
		patch:  "@@\n int f(int n) {\n+\tcheck(n);\n     if (n > 0) {\n@@ int e(int n) {\n-\tm(n);\n+\tm(n + 1);\n",
		after: strings.Replace(strings.Replace(spacesWithStrayTab, "int f(int n) {\n", "int f(int n) {\n    check(n);\n", 1),
			"int e(int n) {\n    m(n);", "int e(int n) {\n    m(n + 1);", 1),
	},
	{
		name:   "E added lines take the indentation the copied lines show",
		before: spacesWithStrayTab,
		old:    "int e(int n) {\n\tm(n);",
		new:    "int e(int n) {\n\tcheck(n);\n\tm(n + 1);",
		after:  strings.Replace(spacesWithStrayTab, "int e(int n) {\n    m(n);", "int e(int n) {\n    check(n);\n    m(n + 1);", 1),
	},
	{
		// E: most lines around indent with tabs, some with spaces (a
		// Makefile's continuation lines): the model's slip in one hunk
		// says its added recipe line in another is a tab.
		name:   "E added lines take the characters most lines around use",
		before: "all: a b\n\tcc -o a a.c\n\tcc -o b b.c\n\nSRC = a.c \\\n    b.c\n\nclean:\n\trm -f a b\n",
		patch:  "@@\n all: a b\n-    cc -o a a.c\n+    cc -O2 -o a a.c\n@@\n clean:\n+    rm -f *.o\n",
		after:  "all: a b\n\tcc -O2 -o a a.c\n\tcc -o b b.c\n\nSRC = a.c \\\n    b.c\n\nclean:\n\trm -f *.o\n\trm -f a b\n",
	},
	{
		// E: the model wrote tabs for the file's spaces in one hunk; in a
		// code sample of tabs it re-indents a line with spaces, which is
		// not that slip: the change is carried.
		name:   "E a slip's direction: spaces written where tabs were seen for spaces",
		before: "Steps:\n\n    one\n    two\n\n```go\nfunc main() {\n\ta()\n\tb()\n\tc()\n}\n```\n",
		patch:  "@@\n \tone\n-\ttwo\n+\ttwo!\n@@\n func main() {\n-\ta()\n+  a()\n \tb()\n",
		after:  "Steps:\n\n    one\n    two!\n\n```go\nfunc main() {\n  a()\n\tb()\n\tc()\n}\n```\n",
	},
	{
		// E: nothing in the call says the tab is a slip: it is written.
		name:   "E added lines written as given without drift",
		before: spacesWithStrayTab,
		patch:  "@@\n int f(int n) {\n+\tcheck(n);\n     if (n > 0) {\n",
		old:    "int f(int n) {\n    if (n > 0) {",
		new:    "int f(int n) {\n\tcheck(n);\n    if (n > 0) {",
		after:  strings.Replace(spacesWithStrayTab, "int f(int n) {\n", "int f(int n) {\n\tcheck(n);\n", 1),
	},
	{
		// F: the file writes one width two ways (two tabs; a tab and four
		// spaces aligning a continuation); the model wrote both as eight
		// spaces. The added line is spelled like its nearest neighbour of
		// the same indentation.
		name:   "F mixed indentation spelled as the nearest line",
		before: "func f() {\n\tif x {\n\t\ty()\n\t}\n\tcall(a,\n\t    b)\n}\n",
		patch:  "@@\n     if x {\n         y()\n     }\n     call(a,\n+        c,\n         b)\n",
		old:    "    if x {\n        y()\n    }\n    call(a,\n        b)",
		new:    "    if x {\n        y()\n    }\n    call(a,\n        c,\n        b)",
		after:  "func f() {\n\tif x {\n\t\ty()\n\t}\n\tcall(a,\n\t    c,\n\t    b)\n}\n",
	},
	{
		// F: a space before a tab, as the file has it, for a width the
		// model's lines show.
		name:   "F space-then-tab indentation kept",
		before: "// Usage:\n//\n \tOptionally a.\n\tb()\n",
		patch:  "@@\n      Optionally a.\n+     Optionally c.\n     b()\n",
		old:    "     Optionally a.\n    b()",
		new:    "     Optionally a.\n     Optionally c.\n    b()",
		after:  "// Usage:\n//\n \tOptionally a.\n \tOptionally c.\n\tb()\n",
	},
	{
		// F: a code sample indented with spaces in a document indented
		// with tabs; the model wrote tabs for four spaces. A width its
		// lines do not show is written with the characters its swapped
		// lines show the file uses there.
		name:   "F a new width written with the characters the swapped lines show",
		before: "# Doc\n\n" + strings.Repeat("\tA tab-indented line.\n", 12) + "\n```js\nconst f = useCallback(() => {\n  setX(() => {\n    y();\n  });\n}, []);\n\n// etc\n```\n",
		patch:  "@@\n   setX(() => {\n \ty();\n   });\n }, []);\n \n-// etc\n+return (\n+  <ul>\n+\t  {todos}\n+  </ul>\n+);\n ```\n",
		old:    "  setX(() => {\n\ty();\n  });\n}, []);\n\n// etc",
		new:    "  setX(() => {\n\ty();\n  });\n}, []);\n\nreturn (\n  <ul>\n\t  {todos}\n  </ul>\n);",
		after:  "# Doc\n\n" + strings.Repeat("\tA tab-indented line.\n", 12) + "\n```js\nconst f = useCallback(() => {\n  setX(() => {\n    y();\n  });\n}, []);\n\nreturn (\n  <ul>\n      {todos}\n  </ul>\n);\n```\n",
	},
	{
		// F: a block the model shifted by a tab in a file indented with
		// tabs, where a comment aligns with a space: a shift, not tabs
		// written for spaces.
		name:   "F a tab prefix over a space-aligned comment is a shift",
		before: "/**\n * Doc.\n */\ntype W = X\n\nexport type D<T> = {x: T}\n\nfunction f() {\n\treturn 1\n}\n",
		patch:  "@@\n \t */\n \ttype W = X\n \n-\texport type D<T> = {x: T}\n+\texport type D<T> = T extends any[]\n+\t\t? A<T>\n+\t\t: B<T>\n",
		old:    "\t */\n\ttype W = X\n\n\texport type D<T> = {x: T}",
		new:    "\t */\n\ttype W = X\n\n\texport type D<T> = T extends any[]\n\t\t? A<T>\n\t\t: B<T>",
		after:  "/**\n * Doc.\n */\ntype W = X\n\nexport type D<T> = T extends any[]\n\t? A<T>\n\t: B<T>\n\nfunction f() {\n\treturn 1\n}\n",
	},
	{
		// F: the model put two spaces before every line; one of the
		// file's lines starts with a tab. The shift is the two spaces.
		name:   "F a shift put before a tab",
		before: "if x; then\n      if y; then\n\tz=1\n      fi\nfi\n",
		patch:  "@@\n         if y; then\n-  \tz=1\n+          z=1\n         fi\n",
		old:    "        if y; then\n  \tz=1\n        fi",
		new:    "        if y; then\n          z=1\n        fi",
		after:  "if x; then\n      if y; then\n        z=1\n      fi\nfi\n",
	},
	{
		// F: the model indented every line one level (old and new); the
		// change dedents a code sample by that level, so the sample's new
		// lines land where the file has them, but the heading it rewrites
		// says the new text is in the model's frame (click's reST to MyST).
		name:   "F a shifted call whose change dedents by the shift",
		before: "Title\n=====\n\nExample::\n\n    run(x)\n",
		patch:  "@@\n-    Title\n-    =====\n+    # Title\n \n-    Example::\n+    Example:\n \n-        run(x)\n+    ```\n+    run(x)\n+    ```\n",
		old:    "    Title\n    =====\n\n    Example::\n\n        run(x)",
		new:    "    # Title\n\n    Example:\n\n    ```\n    run(x)\n    ```",
		after:  "# Title\n\nExample:\n\n```\nrun(x)\n```\n",
	},
	{
		// C: a whitespace-only line the model empties stays empty, although
		// its copy of the block was indented one level less.
		name:   "C an emptied line stays empty under a shift",
		before: "  a:\n    b\n    \n    c\n",
		patch:  "@@\n a:\n   b\n-  \n+\n   c\n",
		old:    "a:\n  b\n  \n  c",
		new:    "a:\n  b\n\n  c",
		after:  "  a:\n    b\n\n    c\n",
	},
	{
		// G: one rule for every line the model rewrites: the file's
		// trailing whitespace (a Markdown hard break) stays unless the
		// model's own texts change it.
		name:   "G trailing whitespace kept on every rewritten line",
		before: "# Team\n\nMaintainer: Ada  \nContact: ada@example.test  \nSince 2020.\n",
		patch:  "@@\n-Maintainer: Ada\n-Contact: ada@example.test\n+Maintainers: Ada, Grace\n+Contact: team@example.test\n Since 2020.\n",
		old:    "Maintainer: Ada\nContact: ada@example.test",
		new:    "Maintainers: Ada, Grace\nContact: team@example.test",
		after:  "# Team\n\nMaintainers: Ada, Grace  \nContact: team@example.test  \nSince 2020.\n",
	},
	{
		name:   "G trailing whitespace the model removes goes",
		before: "Maintainer: Ada  \nContact: ada@example.test  \n",
		patch:  "@@\n-Maintainer: Ada  \n-Contact: ada@example.test\n+Maintainers: Ada, Grace\n+Contact: team@example.test\n",
		old:    "Maintainer: Ada  \nContact: ada@example.test",
		new:    "Maintainers: Ada, Grace\nContact: team@example.test",
		after:  "Maintainers: Ada, Grace\nContact: team@example.test  \n",
	},
}

// spacesWithStrayTab is C indented with four spaces, with one line
// indented with a tab, as real files have.
var spacesWithStrayTab = func() string {
	var b strings.Builder
	b.WriteString("int f(int n) {\n    if (n > 0) {\n        g(n);\n    }\n\th(n);\n    return n;\n}\n")
	for _, name := range strings.Fields("a b c d e") {
		b.WriteString("\nint " + name + "(int n) {\n    m(n);\n    return n;\n}\n")
	}
	return b.String()
}()

func TestExpressedChanges(t *testing.T) {
	t.Parallel()
	for _, tc := range expressedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if tc.patch != "" {
				got, err := applyPatchHunks(tc.before, tc.patch)
				if err != nil {
					t.Errorf("patch refused: %v", err)
				} else if got != tc.after {
					t.Errorf("patch:\n got %q\nwant %q", got, tc.after)
				}
			}
			if tc.old != "" {
				out, merr := Replace(tc.before, tc.old, tc.new, false)
				switch {
				case tc.editRefused != "":
					if merr == nil {
						t.Errorf("edit applied: %q", out.Text)
					} else if msg := merr.Explain("f"); !strings.Contains(msg, tc.editRefused) {
						t.Errorf("edit refusal %q lacks %q", msg, tc.editRefused)
					}
				case merr != nil:
					t.Errorf("edit refused: %s", merr.Explain("f"))
				case out.Text != tc.after:
					t.Errorf("edit:\n got %q\nwant %q", out.Text, tc.after)
				}
			}
		})
	}
}

// TestExpressedChangesRefusedTwice doubles each case's file: every place
// the change could go is there twice, two choices fit, and both forms are
// refused with the places named.
func TestExpressedChangesRefusedTwice(t *testing.T) {
	t.Parallel()
	for _, tc := range expressedCases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			twice := tc.before + tc.before
			if tc.patch != "" {
				got, err := applyPatchHunks(twice, tc.patch)
				if err == nil {
					t.Errorf("patch applied on the doubled file:\n%q", got)
				} else if !strings.Contains(err.Error(), "places") || !strings.Contains(err.Error(), "lines ") {
					t.Errorf("patch refusal names no places: %v", err)
				}
			}
			if tc.old != "" {
				if out, merr := Replace(twice, tc.old, tc.new, false); merr == nil {
					t.Errorf("edit applied on the doubled file:\n%q", out.Text)
				} else if merr.count < 2 {
					t.Errorf("edit refusal counts %d places", merr.count)
				}
			}
		})
	}
}

// applyPatchHunks applies the hunks of one Update section to before.
func applyPatchHunks(before, hunks string) (string, error) {
	ops, err := ParsePatch(hdrBegin + "\n" + hdrUpdate + " f\n" + hunks + hdrEnd + "\n")
	if err != nil {
		return "", err
	}
	out, _, err := ops[0].Apply(before)
	return out, err
}
