package permission

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/tools"
)

// tableCase is one command of testdata/commands.txt.
type tableCase struct {
	line    int
	command string
	want    []string // per column: strict balanced auto-edit yolo plan
	reason  string
}

var tableColumns = []struct {
	preset string
	mode   agent.Mode
}{
	{PresetStrict, agent.Build}, {PresetBalanced, agent.Build}, {PresetAutoEdit, agent.Build},
	{PresetYolo, agent.Build}, {PresetBalanced, agent.Plan},
}

func readTable(t testing.TB) []tableCase {
	t.Helper()
	f, err := os.Open("testdata/commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []tableCase
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "$ "):
			cases = append(cases, tableCase{line: n, command: line[2:]})
		case strings.HasPrefix(line, "= "):
			cases[len(cases)-1].want = strings.Fields(line[2:])
		case strings.HasPrefix(line, "~ "):
			cases[len(cases)-1].reason = line[2:]
		}
	}
	return cases
}

// newWorkspace builds the fixture the table describes.
func newWorkspace(t testing.TB) *tools.Workspace {
	t.Helper()
	base := t.TempDir()
	ws := filepath.Join(base, "ws")
	outside := filepath.Join(base, "outside")
	for _, d := range []string{ws, outside, filepath.Join(ws, "build"), filepath.Join(ws, "sub")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"existing.txt", ".env", ".env.example"} {
		if err := os.WriteFile(filepath.Join(ws, f), []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(ws, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(".env", filepath.Join(ws, "envlink")); err != nil {
		t.Fatal(err)
	}
	w, err := tools.NewWorkspace(ws)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// outcome folds a policy decision and the tool-level reasons into what a
// person experiences.
func outcome(d Decision, c *tools.Call) string {
	switch {
	case d.Action == Deny:
		return "deny"
	case len(c.Reasons) > 0 || d.Danger:
		return "danger"
	case d.Action == Ask:
		return "ask"
	}
	return "allow"
}

func TestCommandTable(t *testing.T) {
	ws := newWorkspace(t)
	engines := make([]*Engine, len(tableColumns))
	for i, col := range tableColumns {
		e, err := newPolicy(PolicyOptions{Permission: config.Permission{Preset: col.preset}})
		if err != nil {
			t.Fatal(err)
		}
		engines[i] = e
	}
	cases := readTable(t)
	if len(cases) < 60 {
		t.Fatalf("only %d commands in the table", len(cases))
	}
	for _, tc := range cases {
		if len(tc.want) != len(tableColumns) {
			t.Fatalf("line %d: %d outcomes, want %d", tc.line, len(tc.want), len(tableColumns))
		}
		c := decode(ws, tools.Bash, map[string]string{"command": tc.command})
		if c.Failure != nil {
			t.Errorf("line %d %s: %s", tc.line, tc.command, c.Failure.Content)
			continue
		}
		for i, col := range tableColumns {
			d := engines[i].Decide(c, col.mode)
			got := outcome(d, c)
			name := col.preset + "/" + string(col.mode)
			if got != tc.want[i] {
				t.Errorf("line %d %s: %s = %s, want %s\n  policy: %s\n  reasons: %q",
					tc.line, tc.command, name, got, tc.want[i], d.Reason, c.Reasons)
				continue
			}
			all := d.Reason + "\n" + strings.Join(c.Reasons, "\n")
			if got != "allow" && !strings.Contains(all, tc.reason) {
				t.Errorf("line %d %s: %s reasons lack %q:\n%s", tc.line, tc.command, name, tc.reason, all)
			}
		}
	}
}

// FuzzAnalyzeBash: no input makes the analyzer or the policy panic.
func FuzzAnalyzeBash(f *testing.F) {
	for _, tc := range readTable(f) {
		f.Add(tc.command)
	}
	f.Add("a=$(b <(c) `d`) e ${f:-$(g)} <<EOF\n$(h)\nEOF\n")
	f.Add("function f { f | f & }; f; [[ $(x) ]]; (( $(y) )); case $(z) in $(w)) v;; esac")
	ws := newWorkspace(f)
	e, err := newPolicy(PolicyOptions{})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, command string) {
		start := time.Now()
		c := decode(ws, tools.Bash, map[string]string{"command": command})
		if d := time.Since(start); d > 2*time.Second {
			t.Errorf("%q took %v", command, d)
		}
		if c.Failure != nil {
			return // an empty command
		}
		if c.Shell.ParseError != "" && c.Shell.ReadOnly {
			t.Errorf("%q: unparseable but read-only", command)
		}
		e.Decide(c, agent.Plan)
	})
}
