package commands

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// userTexts is what a request's history holds from the person (and
// coder's notes to the model), oldest first.
func userTexts(r llmtest.Request) []string {
	var users []string
	for _, m := range r.Messages() {
		if m.Role == "user" {
			users = append(users, m.Text)
		}
	}
	return users
}

// TestRewindCodeThenConversation: /rewind lists the turns, those that
// changed files marked; "code" puts the files back and tells the model,
// keeping the conversation; "conversation" then takes the history back,
// leaving the files; bad arguments change nothing.
func TestRewindCodeThenConversation(t *testing.T) {
	e := newEnv(t,
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"one\n"}`)),
		llmtest.Text("wrote one"),
		llmtest.Calls(llmtest.Call("write", `{"path":"a.txt","content":"two\n"}`)),
		llmtest.Text("wrote two"),
		llmtest.Text("three"),
		llmtest.Step{Text: "after code", Check: func(r llmtest.Request) error {
			u := userTexts(r)
			if len(u) != 5 || !strings.Contains(u[3], "[rewind]") || !strings.Contains(u[3], "a.txt") {
				return fmt.Errorf("after a code rewind the history holds %q", u)
			}
			return nil
		}},
		llmtest.Step{Text: "after conversation", Check: func(r llmtest.Request) error {
			if u := userTexts(r); len(u) != 2 || u[0] != "first" || u[1] != "fifth" {
				return fmt.Errorf("after a conversation rewind the history holds %q", u)
			}
			return nil
		}},
	)
	for _, in := range []string{"first", "second", "third"} {
		if _, err := e.do(t, in); err != nil {
			t.Fatal(err)
		}
	}
	a := func() string { b, _ := os.ReadFile(filepath.Join(e.dir, "a.txt")); return string(b) }
	list, err := e.do(t, "/rewind")
	if err != nil || !strings.Contains(list, "1. first  (changed files)") || !strings.Contains(list, "2. second  (changed files)") ||
		!strings.Contains(list, "3. third\n") {
		t.Fatalf("/rewind: %v\n%s", err, list)
	}
	for _, bad := range []string{"/rewind 9", "/rewind 1 --overwrite --keep", "/rewind two"} {
		if _, err := e.do(t, bad); err == nil {
			t.Fatalf("%s: no error", bad)
		}
	}
	if a() != "two\n" || len(e.orch.Turns()) != 3 {
		t.Fatal("a refused /rewind changed something")
	}

	out, err := e.do(t, "/rewind 2 code")
	if err != nil || !strings.Contains(out, "files put back: a.txt") || a() != "one\n" {
		t.Fatalf("/rewind 2 code: %v %q, a.txt %q", err, out, a())
	}
	if len(e.orch.Turns()) != 3 {
		t.Fatal("a code rewind changed the conversation")
	}
	if _, err := e.do(t, "fourth"); err != nil {
		t.Fatal(err)
	}

	out, err = e.do(t, "/rewind 2 conversation")
	if err != nil || !strings.Contains(out, "conversation:") || a() != "one\n" {
		t.Fatalf("/rewind 2 conversation: %v %q, a.txt %q", err, out, a())
	}
	if turns := e.orch.Turns(); len(turns) != 1 || turns[0].Input != "first" {
		t.Fatalf("turns after: %+v", turns)
	}
	if _, err := e.do(t, "fifth"); err != nil {
		t.Fatal(err)
	}
}
