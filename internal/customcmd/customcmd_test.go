package customcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	ws, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(ws, ".coder", "commands"), map[string]string{
		"Review.md":    "\n# Review the diff\n\nReview $ARGUMENTS carefully.\n",
		"fix-issue.md": "---\ndescription: Fix a GitHub issue\n---\nFix issue #$ARGUMENTS.\n",
		"bad name.md":  "x",
		"empty.md":     "---\ndescription: nothing\n---\n\n",
		"notes.txt":    "ignored",
		"broken.md":    "---\ndescription: x\n",
	})
	write(t, filepath.Join(user, "commands"), map[string]string{
		"review.md": "user review",
		"deploy.md": "Deploy to $ARGUMENTS",
	})
	cmds, errs := Discover(ws, user)
	var got []string
	for _, c := range cmds {
		got = append(got, c.Name+"="+c.Description)
	}
	want := "deploy=Deploy to $ARGUMENTS|fix-issue=Fix a GitHub issue|review=Review the diff"
	if strings.Join(got, "|") != want {
		t.Errorf("commands = %q, want %q", strings.Join(got, "|"), want)
	}
	if cmds[2].Path != filepath.Join(ws, ".coder", "commands", "Review.md") {
		t.Errorf("review path = %s", cmds[2].Path)
	}
	wantErrs := []string{"name \"bad name\" may only use", "broken.md: front matter is not terminated", "empty.md: the file has no prompt", "command /review in " + filepath.Join(user, "commands", "review.md") + " is shadowed by"}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors = %v", errs)
	}
	all := ""
	for _, e := range errs {
		all += e.Error() + "\n"
	}
	for _, w := range wantErrs {
		if !strings.Contains(all, w) {
			t.Errorf("errors lack %q:\n%s", w, all)
		}
	}
}

func TestDiscoverMissingDirs(t *testing.T) {
	t.Parallel()
	cmds, errs := Discover(t.TempDir(), filepath.Join(t.TempDir(), "nope"))
	if len(cmds) != 0 || len(errs) != 0 {
		t.Errorf("got %v, %v", cmds, errs)
	}
}

func TestExpand(t *testing.T) {
	t.Parallel()
	cases := []struct{ body, args, want string }{
		{"Fix $ARGUMENTS now; then test $ARGUMENTS.", " 42 ", "Fix 42 now; then test 42."},
		{"Fix $ARGUMENTS", "", "Fix "},
		{"Summarise the repo.\n\n", "focus on tests", "Summarise the repo.\n\nfocus on tests"},
		{"Summarise the repo.\n", "", "Summarise the repo.\n"},
	}
	for _, c := range cases {
		if got := (Command{Body: c.body}).Expand(c.args); got != c.want {
			t.Errorf("Expand(%q, %q) = %q, want %q", c.body, c.args, got, c.want)
		}
	}
}
