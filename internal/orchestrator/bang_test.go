package orchestrator

import (
	"fmt"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/tools"
)

func TestBangRunsBashWithoutModel(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{}, nil)
	h.write("a.txt", "x")
	out, err := h.run("! ls")
	if err != nil {
		t.Fatal(err)
	}
	want := "$ ls\nexit=0 duration="
	if !strings.HasPrefix(out.Result, want) || !strings.Contains(out.Result, "stdout:\na.txt") {
		t.Fatalf("block:\n%s", out.Result)
	}
	if n := len(h.srv.Requests()); n != 0 {
		t.Fatalf("! made %d model requests", n)
	}
	msgs := h.orch.Session().Messages
	if len(msgs) != 2 || msgs[0].Role != chat.RoleUser || msgs[0].Content != "! ls" ||
		msgs[1].Role != chat.RoleAssistant || msgs[1].Content != out.Result {
		t.Fatalf("session %+v", msgs)
	}
	kinds := strings.Join(h.sink.kinds(), ",")
	if !strings.Contains(kinds, "command") || !strings.HasSuffix(kinds, "context") {
		t.Fatalf("events %s: want a command block and a final context update", kinds)
	}
}

func TestBangDeniedWhenBashDisabled(t *testing.T) {
	h := newHarness(t, llmtest.Scenario{}, nil)
	a := agent.BuildAgent()
	a.Disabled = append(a.Disabled, "bash")
	h.orch.SetAgent(a)
	out, _ := h.run("!ls")
	if out.Result != "command mode denied: bash disabled by active agent build" {
		t.Fatalf("got %q", out.Result)
	}
}

func TestFormatCommandBlock(t *testing.T) {
	lines := func(n int, p string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "%s%d\n", p, i)
		}
		return b.String()
	}
	res := func(code int, out, errs string, trunc bool) tools.Result {
		return tools.Result{Bash: &tools.BashResult{ExitCode: code, Stdout: out, Stderr: errs, Truncated: trunc, DurationMS: 7}}
	}
	cases := []struct {
		name   string
		result tools.Result
		want   string
	}{
		{"empty", res(0, "", "", false), "$ c\nexit=0 duration=7ms\n(no output)"},
		{"both", res(2, "o\n", "e\n", false), "$ c\nexit=2 duration=7ms\nstdout:\no\nstderr:\ne"},
		{"truncated", res(0, "o\n", "", true), "$ c\nexit=0 duration=7ms (truncated)\nstdout:\no"},
		{"cut stdout", res(0, lines(25, "l"), "", false),
			"$ c\nexit=0 duration=7ms\nstdout:\n" + lines(20, "l") + "...[output truncated for display]"},
		{"cut stderr", res(1, "", lines(21, "e"), false),
			"$ c\nexit=1 duration=7ms\nstderr:\n" + lines(20, "e") + "...[error output truncated for display]"},
	}
	for _, c := range cases {
		if got := FormatCommandBlock("c", c.result); got != c.want {
			t.Errorf("%s:\n got %q\nwant %q", c.name, got, c.want)
		}
	}
}
