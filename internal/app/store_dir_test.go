package app

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestStoreLocationStaysInsideThroughRealDirectories(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	link := func(name, target string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(filepath.Join(root, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(target, filepath.Join(root, name)); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(root, "real", "state"), 0o755); err != nil {
		t.Fatal(err)
	}
	link("linked", outside)
	link("inner", filepath.Join(root, "real"))
	link("real/state/sessions", outside)
	for _, c := range []struct {
		dir, db, refused string
	}{
		{".coder", "", ""},
		{"fresh/new/.coder", "", ""},
		{"linked", "", "linked is a symbolic link"},
		{"linked/.coder", "", "linked is a symbolic link"},
		{"inner/.coder", "", "inner is a symbolic link"}, // a link that stays inside is refused too
		{"real/state", "", "sessions is a symbolic link"},
		{"../elsewhere", "", "outside the workspace"},
		{outside, "", "outside the workspace"},
		{".coder", "linked/coder.db", "linked is a symbolic link"},
		{".coder", "/tmp/coder.db", "outside the workspace"},
		{".coder", "db/coder.db", ""},
	} {
		dir, db, err := storeLocation(root, c.dir, c.db)
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s %s: %v", c.dir, c.db, err)
		case c.refused == "" && (!strings.HasPrefix(dir, root+"/") || c.db != "" && !strings.HasPrefix(db, root+"/")):
			t.Errorf("%s %s: resolved to %s %s", c.dir, c.db, dir, db)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused)):
			t.Errorf("%s %s: want refusal %q, got %v", c.dir, c.db, c.refused, err)
		}
	}
}
