//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// undoTurn is a turn in which coder edits a.txt, then e.txt, then a.txt
// again (after reading it again) and writes new.txt; between two of its
// calls, personEdits runs (the person's editor, as the model waits).
func undoTurn(personEdits func()) llmtest.Scenario {
	return llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.txt"}`), llmtest.Call("read", `{"path":"e.txt"}`)),
		llmtest.Calls(llmtest.Call("edit", `{"path":"a.txt","old_string":"one","new_string":"two"}`),
			llmtest.Call("edit", `{"path":"e.txt","old_string":"e","new_string":"E"}`)),
		{ToolCalls: []llmtest.ToolCall{llmtest.Call("read", `{"path":"a.txt"}`)},
			Check: func(llmtest.Request) error { personEdits(); return nil }},
		llmtest.Calls(llmtest.Call("edit", `{"path":"a.txt","old_string":"two","new_string":"three"}`),
			llmtest.Call("write", `{"path":"new.txt","content":"coder's\n"}`)),
		llmtest.Text("done"),
	}}
}

// TestUndoLeavesThePersonsChanges: the person edits a.txt in their editor
// between two of coder's calls (and coder edits it again after), and e.txt
// after the turn; /undo leaves both with the person's work, names them,
// and reverts coder's other change (new.txt). Positive control: with no
// edit of the person's, /undo reverts everything coder did.
func TestUndoLeavesThePersonsChanges(t *testing.T) {
	for _, person := range []bool{true, false} {
		name := map[bool]string{true: "the person edits", false: "control: nobody else edits"}[person]
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "a.txt", "one\n")
			writeFile(t, dir, "e.txt", "e\n")
			edit := func() {
				if person {
					writeFile(t, dir, "a.txt", readFile(t, dir, "a.txt")+"the person's line\n")
				}
			}
			srv := llmtest.NewServer(t, undoTurn(edit))
			env := providerEnv(t, srv, "openai")
			if res := (run{args: []string{"-p", "change things"}, env: env, dir: dir}.exec(t)); res.code != 0 {
				t.Fatalf("turn: %+v", res)
			}
			if person {
				writeFile(t, dir, "e.txt", readFile(t, dir, "e.txt")+"mine\n")
			}
			undo := run{args: []string{"--continue", "-p", "/undo"}, env: env, dir: dir}.exec(t)
			if undo.code != 0 {
				t.Fatalf("/undo: %+v", undo)
			}
			if _, err := os.Stat(filepath.Join(dir, "new.txt")); !os.IsNotExist(err) {
				t.Fatalf("coder's new.txt survived /undo: %v\n%s", err, undo.stdout)
			}
			if !person {
				if a, e := readFile(t, dir, "a.txt"), readFile(t, dir, "e.txt"); a != "one\n" || e != "e\n" || strings.Contains(undo.stdout, "left as they are") {
					t.Fatalf("control: a.txt %q e.txt %q\n%s", a, e, undo.stdout)
				}
				return
			}
			if a := readFile(t, dir, "a.txt"); a != "three\nthe person's line\n" {
				t.Fatalf("/undo reverted the person's edit of a.txt: %q\n%s", a, undo.stdout)
			}
			if e := readFile(t, dir, "e.txt"); e != "E\nmine\n" {
				t.Fatalf("/undo reverted the person's edit of e.txt: %q\n%s", e, undo.stdout)
			}
			left := undo.stdout[strings.Index(undo.stdout, "left as they are"):]
			if !strings.Contains(left, "a.txt") || !strings.Contains(left, "e.txt") || !strings.Contains(undo.stdout, "new.txt") {
				t.Fatalf("/undo does not say what it left:\n%s", undo.stdout)
			}
		})
	}
}
