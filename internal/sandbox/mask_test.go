package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestWorkspaceSecretsReadAsEmpty: at LevelFull the files the deny_read
// patterns name inside the workspace read as empty, whatever form the
// command takes (a name it computes, python, a symlink, a copy, a
// rename), and what it writes there is discarded; the committed example
// and other files read normally.
func TestWorkspaceSecretsReadAsEmpty(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	for f, content := range map[string]string{".env": "API_KEY=SECRET-1\n", "pkg/.env.local": "SECRET-2\n",
		"certs/server.key": "SECRET-3\n", ".env.example": "API_KEY=changeme\n", "main.go": "package main\n"} {
		writeTestFile(t, filepath.Join(w.ws, f), content)
	}
	p := w.profile(LevelFull)
	p.DenyReadPatterns = []string{".env", ".env.*", "!.env.example", "*.key"}
	script := `cat $(ls -a | grep env); cat pkg/.env.local certs/*; ln -s .env e && cat e; cp .env c && cat c;
mv .env moved 2>&1; echo "moved: $?"; echo x >> .env 2>&1; echo "appended: $?"; cat main.go`
	if _, err := exec.LookPath("python3"); err == nil {
		script += `; python3 -c "print(open('.env').read())"`
	}
	r := run(t, p, script)
	if strings.Contains(r.stdout, "SECRET") || strings.Contains(r.stderr, "SECRET") {
		t.Fatalf("a secret was read: %+v", r)
	}
	if !strings.Contains(r.stdout, "API_KEY=changeme") || !strings.Contains(r.stdout, "package main") {
		t.Fatalf("positive control: the example and the code: %+v", r)
	}
	if !strings.Contains(r.stdout, "moved: 1") {
		t.Fatalf("the mask could be moved: %+v", r)
	}
	if b, _ := os.ReadFile(filepath.Join(w.ws, ".env")); string(b) != "API_KEY=SECRET-1\n" {
		t.Fatalf(".env changed: %q", b)
	}
}
