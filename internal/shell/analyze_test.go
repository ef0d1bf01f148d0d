package shell

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func TestAnalyzeCommands(t *testing.T) {
	tests := []struct {
		command string
		want    [][]string
	}{
		{"ls -la | grep x", [][]string{{"ls", "-la"}, {"grep", "x"}}},
		{"'r''m' -rf \"a b\"", [][]string{{"rm", "-rf", "a b"}}},
		{`r\m x`, [][]string{{"rm", "x"}}},
		{"echo $(date) ${HOME}", [][]string{{"date"}, {"echo", "$(date)", "$HOME"}}},
		{"bash -c 'ls; pwd'", [][]string{{"ls"}, {"pwd"}}},
		{"env A=1 B=2 nice -n 5 timeout 10 go test ./...", [][]string{{"go", "test", "./..."}}},
		{"sudo -u bob ls", [][]string{{"sudo", "-u", "bob", "ls"}, {"ls"}}},
		{"find . -name x -exec rm {} +", [][]string{{"find", ".", "-name", "x", "-exec", "rm", "{}", "+"}, {"rm", "{}"}}},
		{"f() { ls; }; f", [][]string{{"ls"}, {"f"}}},
		{"export A=1 B=$(pwd)", [][]string{{"pwd"}, {"export", "A=1", "B=$(pwd)"}}},
		{"cat <<EOF\n$(whoami)\nEOF", [][]string{{"whoami"}, {"cat"}}},
		{"[[ -n $(id) ]] && (( $(nproc) > 1 ))", [][]string{{"id"}, {"nproc"}}},
		{"case $(uname) in Linux) echo l;; esac", [][]string{{"uname"}, {"echo", "l"}}},
		{"while read l; do echo $l; done < f", [][]string{{"read", "l"}, {"echo", "$l"}}},
		{"x=1", nil},
	}
	for _, tt := range tests {
		a := Analyze(tt.command, Options{Workspace: t.TempDir()})
		if !reflect.DeepEqual(a.Argvs(), tt.want) {
			t.Errorf("%q: commands %q, want %q", tt.command, a.Argvs(), tt.want)
		}
	}
}

func TestAnalyzeReadOnly(t *testing.T) {
	tests := []struct {
		command string
		want    bool
	}{
		{"ls -la", true}, {"git log -5 --stat", true}, {"cat a | grep b | wc -l", true},
		{"find . -type f -name '*.go'", true}, {"git branch -a", true}, {"git stash list", true},
		{"git config user.name", true}, {"echo $HOME $PATH", true}, {"ls 2>/dev/null", true},
		{"uname -a && pwd && id", true}, {"go version", true}, {"sort -u f", true},
		{"ls; rm x", false}, {"cat $(rm x)", false}, {"find . -delete", false},
		{"find . -exec cat {} \\;", false}, {"git branch -D x", false}, {"git config user.name x", false},
		{"sort -o out f", false}, {"ls > out", false}, {"ls >> out", false}, {"git -c core.pager=x log", false},
		{"rg --pre cat x", false}, {"$X", false}, {"grep $PATTERN f", false}, {"make", false},
		{"echo 'unterminated", false}, {"{ ls; } > out", false}, {":(){ :|:& };:", false},
		{"date -s 2020-01-01", false}, {"bash -c 'ls' > out", false},
		{strings.Repeat("eval ", 12) + "ls", false}, {"go env -w GOFLAGS=x", false}, {"sudo ls", false},
	}
	for _, tt := range tests {
		if got := Analyze(tt.command, Options{Workspace: t.TempDir()}).ReadOnly; got != tt.want {
			t.Errorf("%q: ReadOnly = %v, want %v", tt.command, got, tt.want)
		}
		if got := IsReadOnly(tt.command); got != tt.want && !strings.Contains(tt.command, ">") {
			t.Errorf("IsReadOnly(%q) = %v", tt.command, got)
		}
	}
}

func TestAnalyzeRespectsCwdAndWritable(t *testing.T) {
	ws := newWorkspace(t)
	outside := filepath.Join(filepath.Dir(ws), "outside")
	if r := Analyze("rm -rf *", Options{Cwd: filepath.Join(ws, "build"), Workspace: ws}).Reasons; len(r) != 0 {
		t.Errorf("rm -rf * in build/: %q", r)
	}
	if r := Analyze("rm -rf *", Options{Cwd: ws, Workspace: ws}).Reasons; len(r) == 0 {
		t.Error("rm -rf * at the workspace root: no reason")
	}
	if r := Analyze("echo x > existing.txt", Options{Cwd: "build", Workspace: ws}).Reasons; len(r) != 0 {
		t.Errorf("relative cwd, new file: %q", r)
	}
	cmd := "echo x > " + filepath.Join(outside, "f")
	if r := Analyze(cmd, Options{Cwd: ws, Workspace: ws}).Reasons; len(r) == 0 {
		t.Error("write outside: no reason")
	}
	if r := Analyze(cmd, Options{Workspace: ws, Writable: []string{outside}}).Reasons; len(r) != 0 {
		t.Errorf("write to an extra writable dir: %q", r)
	}
	if err := os.WriteFile(filepath.Join(outside, "f"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	r := Analyze(cmd, Options{Workspace: ws, Writable: []string{outside}}).Reasons
	if len(r) != 1 || !strings.HasPrefix(r[0], "overwrites an existing file") {
		t.Errorf("overwrite in an extra writable dir: %q", r)
	}
}

func TestAnalyzeParseError(t *testing.T) {
	a := Analyze("echo 'x", Options{Workspace: t.TempDir()})
	if a.ParseError == "" || a.ReadOnly || len(a.Reasons) != 1 || a.Reasons[0] != reasonParse {
		t.Errorf("%+v", a)
	}
}

// newWorkspace builds a workspace with a build/ directory, an existing
// file and an outside/ directory beside it.
func newWorkspace(t testing.TB) string {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	for _, d := range []string{ws, filepath.Join(base, "outside"), filepath.Join(ws, "build")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "existing.txt"), []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return ws
}

func TestAnalyzeControlFiles(t *testing.T) {
	ws := newWorkspace(t)
	for command, want := range map[string]bool{
		"echo '{}' > .coder/config.json":         true,
		"rm -rf .coder":                          true,
		"cp evil.json .mcp.json":                 true,
		"printf x >> .git/config":                true,
		"mv hook .git/hooks/pre-commit":          true,
		"git config core.fsmonitor 'touch x'":    true,
		"git config --unset core.hooksPath":      true,
		"git config --get core.fsmonitor":        false,
		"git config user.name":                   false,
		"echo x > notes.txt":                     false,
		"cat .coder/config.json":                 false,
		"git -c core.pager=cat log --oneline -3": false,
	} {
		an := Analyze(command, Options{Workspace: ws})
		got := false
		for _, r := range an.Reasons {
			got = got || strings.Contains(r, "control file") || strings.Contains(r, "git's configuration")
		}
		if got != want {
			t.Errorf("%q: reasons %q, want a control-file reason: %v", command, an.Reasons, want)
		}
	}
}
