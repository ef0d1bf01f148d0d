package contextmgr

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/tiktoken-go/tokenizer"

	"github.com/coder-agent/coder/internal/agent"
)

var update = flag.Bool("update", false, "rewrite golden files")

func testEnv(mode string) Env {
	return Env{
		AgentPrompt: "You are coder in " + mode + " mode.\n- Be brief.\n",
		Mode:        agent.Mode(mode),
		Cwd:         "/home/dev/project",
		OS:          "linux/amd64",
		Date:        time.Date(2026, 11, 22, 8, 4, 12, 0, time.UTC),
		Model:       "gpt-test",
		Git:         GitSummary("main", 3),
		Rules: []RulesFile{
			{Name: "/home/dev/.config/coder/AGENTS.md", Content: "Answer in English.", Size: 19},
			{Name: "AGENTS.md", Content: "Run `make check` before you finish.\nNever edit generated files.", Size: 1 << 20, Truncated: true},
		},
		Skills: []SkillInfo{
			{Name: "release", Description: "Cut a release:\n bump the version, tag, write notes."},
			{Name: "db-migrate", Description: strings.Repeat("long description ", 20)},
			{Name: "bare"},
		},
	}
}

func TestSystemPromptGolden(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"build", "plan"} {
		got := SystemPrompt(testEnv(mode))
		golden(t, filepath.Join("testdata", "prompt_"+mode+".golden"), got)
	}
}

func TestSystemPromptMinimal(t *testing.T) {
	t.Parallel()
	got := SystemPrompt(Env{AgentPrompt: "Agent.", Cwd: "/w"})
	want := "Agent.\n\n# Environment\n- working directory: /w\n"
	if got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestSystemPromptStableWithinADay(t *testing.T) {
	t.Parallel()
	a, b := testEnv("build"), testEnv("build")
	b.Date = a.Date.Add(10 * time.Hour)
	if SystemPrompt(a) != SystemPrompt(b) {
		t.Error("the prompt changed within one day")
	}
}

func TestGitSummary(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		branch string
		n      int
		want   string
	}{{"main", 0, "main, clean"}, {"dev", 1, "dev, 1 changed file"}, {"", 12, "detached HEAD, 12 changed files"}} {
		if got := GitSummary(c.branch, c.n); got != c.want {
			t.Errorf("GitSummary(%q, %d) = %q, want %q", c.branch, c.n, got, c.want)
		}
	}
}

// TestSystemPromptOverhead reports the fixed per-request cost of the system
// prompt with the real agent prompts and no rules or skills (run with -v).
func TestSystemPromptOverhead(t *testing.T) {
	t.Parallel()
	cl := codec(t, tokenizer.Cl100kBase)
	o2 := codec(t, tokenizer.O200kBase)
	for _, mode := range []string{"build", "plan"} {
		agent, err := os.ReadFile(filepath.Join("..", "agent", "prompts", mode+".md"))
		if err != nil {
			t.Skipf("agent prompt: %v", err)
		}
		e := testEnv(mode)
		e.AgentPrompt, e.Rules, e.Skills = string(agent), nil, nil
		p := SystemPrompt(e)
		t.Logf("%-5s system prompt: %4d bytes, estimate %3d tokens, cl100k %3d, o200k %3d",
			mode, len(p), EstimateText(p), count(t, cl, p), count(t, o2, p))
	}
}

func golden(t *testing.T, path, got string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test -update after checking):\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
	}
}
