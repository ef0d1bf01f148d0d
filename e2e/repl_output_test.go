//go:build e2e

package e2e

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// Long output (issue 26, item 1): the model is given the head and the
// tail of a long output with the cut marked between them and the path of
// a file holding all of it, which its tools can read; on screen the tail
// is the real end however much came, and /output shows the rest.

var fullOutputRE = regexp.MustCompile(`is in (/\S*coder-session-\S+/bash-stdout-\S+\.txt)`)

// The model's tool result for a 20,000-line output holds its last line
// and names the file with all of it; a next bash call reads that file.
func TestHeadlessModelSeesTheEndOfLongOutput(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall(`for i in $(seq 1 20000); do echo "ok line $i"; done; echo '--- FAIL: TestAdd FINAL-ERROR'; exit 1`)),
		llmtest.Calls(bashCall(`wc -l < $TMPDIR/bash-stdout-*.txt; sed -n 12345p $TMPDIR/bash-stdout-*.txt`)),
		llmtest.Text("the test fails"),
	}})
	dir := t.TempDir()
	res := run{args: []string{"-p", "run the tests", "--output-format", "json"}, env: providerEnv(t, srv, "openai"), dir: dir}.exec(t)
	if res.code != 0 || !strings.Contains(res.stdout, `"result":"the test fails"`) {
		t.Fatalf("exit %d\n%s\n%s", res.code, res.stdout, res.stderr)
	}
	first := results(t, srv, 0)
	if len(first) != 1 {
		t.Fatalf("results %q", first)
	}
	got := first[0]
	for _, want := range []string{`"stdout":"ok line 1\nok line 2\n`, `ok line 20000\n--- FAIL: TestAdd FINAL-ERROR\n"`, " lines cut; the whole output (20001 lines) is in ", `"truncated":true`, `"stdout_file":"`} {
		if !strings.Contains(got, want) {
			t.Fatalf("the model's result lacks %q:\n%.600s … %.600s", want, got, got[max(len(got)-600, 0):])
		}
	}
	if len(got) > 70<<10 {
		t.Fatalf("the model's result is %d bytes", len(got))
	}
	if !fullOutputRE.MatchString(got) {
		t.Fatalf("no file named in the mark: %.300s", got[strings.Index(got, "…["):])
	}
	// Positive control and proof the file is the whole output: the
	// model's own command, in the sandbox, reads a line from the middle.
	if second := results(t, srv, 1); len(second) != 1 || !strings.Contains(second[0], `"stdout":"20001\nok line 12345\n"`) {
		t.Fatalf("reading the file: %q", second)
	}
}

// At 40 and 120 columns a 6 MiB flood ends on screen with its real last
// line; /output shows its first lines, what was let go, and the file.
func TestREPLLongOutputShowsTheRealEnd(t *testing.T) {
	for _, cols := range []int{40, 120} {
		t.Run(strconv.Itoa(cols), func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
				llmtest.Calls(bashCall(`seq -f 'flood %09g' 1 600000; echo FLOOD-DONE`)),
				llmtest.Text("flooded"),
			}})
			dir := t.TempDir()
			s := startTmuxAt(t, cols, srv, dir, nil, "--permissions", "yolo")
			s.typeText("flood")
			s.keys("Enter")
			s.waitFor("flooded")
			scr := s.waitNoStatus()
			tail := scr[strings.LastIndex(scr, "[tool] bash"):]
			if !strings.Contains(tail, "    flood 000600000\n    FLOOD-DONE\n") || !strings.Contains(tail, "599991 earlier lines") {
				t.Fatalf("the tail is not the end:\n%s", tail)
			}
			if got := results(t, srv, 0); len(got) != 1 || !strings.Contains(got[0], `flood 000600000\nFLOOD-DONE\n"`) {
				t.Fatalf("the model's result does not end with the output's end")
			}
			s.typeText("/output")
			s.keys("Enter")
			scr = s.waitFor("the whole output: ")
			m := regexp.MustCompile(`FLOOD-DONE\nthe whole output: (/\S+)\n`).FindStringSubmatch(scr)
			if m == nil {
				t.Fatalf("/output ends:\n%s", scr[max(len(scr)-800, 0):])
			}
			// The file is there while the session lasts, with every line.
			b, err := os.ReadFile(m[1])
			if err != nil || !strings.HasPrefix(string(b), "flood 000000001\n") || !strings.HasSuffix(string(b), "flood 000600000\nFLOOD-DONE\n") || strings.Count(string(b), "\n") != 600001 {
				t.Fatalf("the whole output's file: %d bytes, %v", len(b), err)
			}
		})
	}
}
