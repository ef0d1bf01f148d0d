//go:build unix

package contextmgr

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A rules file that is not a regular file (a FIFO would block start-up) is
// skipped and reported; the others load.
func TestLoadRulesReportsAnUnreadableFile(t *testing.T) {
	ws := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(ws, "AGENTS.md"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, "CLAUDE.md"), []byte("be brief\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, problems := LoadRules(ws, "")
	if len(got) != 1 || got[0].Name != "CLAUDE.md" || len(problems) != 1 || !strings.Contains(problems[0].Error(), "AGENTS.md") {
		t.Fatalf("rules %+v, problems %v", got, problems)
	}
}
