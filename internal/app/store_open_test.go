package app

import (
	"os"
	"path/filepath"
	"testing"
)

// The store opens in the background, but its directory and .gitignore are
// there when loadBase returns: git's summary, started meanwhile, counts the
// workspace as it will be (the first run in a repository lists .coder/ as
// any later run does).
func TestStoreDirectoryIsThereBeforeTheStoreOpens(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	env := func(k string) (string, bool) {
		switch k {
		case "HOME":
			return home, true
		case "XDG_CONFIG_HOME":
			return filepath.Join(home, ".config"), true
		}
		return "", false
	}
	for i := range 20 { // a new workspace each round: the race, if any, has a chance
		dir := filepath.Join(ws, "round", string(rune('a'+i)))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		b, err := loadBase(flags{cwd: dir}, env)
		if err != nil {
			t.Fatal(err)
		}
		_, statErr := os.Stat(filepath.Join(dir, ".coder", ".gitignore"))
		if err := b.openedStore(); err != nil {
			t.Fatal(err)
		}
		b.Close()
		if statErr != nil {
			t.Fatalf("round %d: .coder/.gitignore not there when loadBase returned: %v", i, statErr)
		}
	}
}
