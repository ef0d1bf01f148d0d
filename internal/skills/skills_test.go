package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func write(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func skill(name, desc string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\nInstructions for " + name + ".\n"
}

func TestDiscover(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	write(t, ws, map[string]string{
		".coder/skills/pdf/SKILL.md":        skill("pdf", "Fill PDF forms"),
		".coder/skills/pdf/scripts/fill.py": "print(1)",
		".coder/skills/broken/SKILL.md":     "---\nname: broken\n",
		".coder/skills/nodesc/SKILL.md":     "---\nname: nodesc\n---\n",
		".coder/skills/plain/SKILL.md":      "no front matter\n",
		".coder/skills/notes.md":            "not a skill",
		".coder/skills/deep/a/b/SKILL.md":   skill("deep", "too deep"),
		".claude/skills/pdf/SKILL.md":       skill("pdf", "Claude's pdf"),
		".claude/skills/review/SKILL.md":    skill("review", "Review code"),
		".agents/skills/SKILL.md":           skill("agents-root", "A skill dir listed itself"),
		"extra/one/SKILL.md":                skill("one", "From an absolute path"),
	})
	write(t, home, map[string]string{".config/coder/skills/mine/SKILL.md": skill("mine", "A user skill")})

	got, errs := Discover([]string{".coder/skills", "~/.config/coder/skills", filepath.Join(ws, "extra"), "missing/dir"}, ws, home)
	var names []string
	for _, s := range got {
		names = append(names, s.Name)
	}
	want := "pdf mine one review agents-root"
	if strings.Join(names, " ") != want {
		t.Errorf("names = %v, want %s", names, want)
	}
	if got[0].Description != "Fill PDF forms" || got[0].Dir != filepath.Join(ws, ".coder/skills/pdf") || got[0].Path != filepath.Join(got[0].Dir, "SKILL.md") {
		t.Errorf("pdf = %+v", got[0])
	}
	wantErrs := []string{
		"broken/SKILL.md: front matter is not terminated",
		"nodesc/SKILL.md: front matter has no description",
		"plain/SKILL.md: no front matter",
		`skill "pdf" in ` + filepath.Join(ws, ".claude/skills/pdf/SKILL.md") + " is shadowed by " + filepath.Join(ws, ".coder/skills/pdf/SKILL.md"),
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("errors = %v", errs)
	}
	for i, w := range wantErrs {
		if !strings.Contains(errs[i].Error(), w) {
			t.Errorf("error %d = %v, want %q", i, errs[i], w)
		}
	}
}

func TestDiscoverDoesNotRescan(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write(t, ws, map[string]string{".claude/skills/x/SKILL.md": skill("x", "d")})
	got, errs := Discover([]string{".claude/skills", "./.claude/skills/"}, ws, "")
	if len(got) != 1 || len(errs) != 0 {
		t.Errorf("got %v, errors %v", got, errs)
	}
}

func TestLoad(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	write(t, ws, map[string]string{
		"s/pdf/SKILL.md":          skill("pdf", "Fill PDF forms"),
		"s/pdf/scripts/fill.py":   "print(1)",
		"s/pdf/reference.md":      "ref",
		"s/pdf/.hidden/x":         "x",
		"s/pdf/nested/SKILL.md":   skill("nested", "its own skill"),
		"s/pdf/nested/secret.txt": "not listed",
	})
	list, _ := Discover([]string{"s"}, ws, "")
	text, err := list[0].Load()
	if err != nil {
		t.Fatal(err)
	}
	want := "Instructions for pdf.\n\nSkill directory: " + filepath.Join(ws, "s/pdf") +
		"\nOther files in it (paths relative to it; read them when the instructions call for them):\n- reference.md\n- scripts/fill.py\n"
	if text != want {
		t.Errorf("Load =\n%s\nwant\n%s", text, want)
	}
	if c := Catalog(list); c != "- pdf: Fill PDF forms\n" {
		t.Errorf("Catalog = %q", c)
	}
}
