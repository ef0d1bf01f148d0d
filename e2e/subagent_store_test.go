//go:build e2e

package e2e

import (
	"database/sql"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// A subagent's tool calls are stored, tagged with the task call and the
// kind, in coder.db and the session's JSON, and never sent to the parent
// model, which sees only the task's answer.
func TestSubagentToolCallsInTheStore(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.ToolCall{ID: "task_call_7", Name: "task", Args: `{"description":"find the note","prompt":"read note.txt and quote it","agent":"explore"}`}),
		llmtest.Calls(llmtest.ToolCall{ID: "sub_call_read", Name: "read", Args: `{"path":"note.txt"}`}),
		llmtest.Text("The note says: purple-elephant"),
		llmtest.Text("The subagent found it: purple-elephant."),
		llmtest.Text("Still purple."),
	}})
	dir := t.TempDir()
	writeFile(t, dir, "note.txt", "purple-elephant\n")
	env := providerEnv(t, srv, "openai")
	res := run{args: []string{"-p", "what does the note say?", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
	evs := streamEvents(t, res.stdout)
	last := evs[len(evs)-1]
	id, _ := last["session_id"].(string)
	if last["result"] != "The subagent found it: purple-elephant." || id == "" {
		t.Fatalf("result %v", last)
	}

	// The parent's last request: the task's result, not the subagent's call.
	reqs := srv.Requests()
	final := reqs[len(reqs)-1]
	if strings.Contains(string(final.Body), "sub_call_read") {
		t.Fatalf("the parent model was sent the subagent's tool call:\n%s", final.Body)
	}
	if r := lastToolResults(final); len(r) != 1 || !strings.Contains(r[0].Text, "purple-elephant") {
		t.Fatalf("task result %+v", r)
	}

	// coder.db: the subagent's rows, tagged; the parent's messages without them.
	db, err := sql.Open("sqlite", filepath.Join(dir, ".coder", "coder.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query(`SELECT task_call_id, agent, role, tool_name, message_json FROM subagent_messages WHERE session_id = ? ORDER BY seq`, id)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var call, result bool
	n := 0
	for rows.Next() {
		var task, agent, role, tool, msg string
		if err := rows.Scan(&task, &agent, &role, &tool, &msg); err != nil {
			t.Fatal(err)
		}
		n++
		if task != "task_call_7" || agent != "explore" {
			t.Fatalf("row not tagged: task %q agent %q", task, agent)
		}
		call = call || role == "assistant" && strings.Contains(msg, "sub_call_read")
		result = result || role == "tool" && tool == "read" && strings.Contains(msg, "purple-elephant")
	}
	if err := rows.Err(); err != nil || !call || !result {
		t.Fatalf("%d subagent rows, call %v result %v (%v)", n, call, result, err)
	}
	var inParent int
	if err := db.QueryRow(`SELECT COUNT(*) FROM messages WHERE session_id = ? AND (tool_call_id = 'sub_call_read' OR tool_calls_json LIKE '%sub_call_read%')`, id).Scan(&inParent); err != nil || inParent != 0 {
		t.Fatalf("%d parent messages hold the subagent's call (%v)", inParent, err)
	}

	// coder sessions says the session has one; a resumed session keeps it
	// and still does not send it.
	list := run{args: []string{"sessions"}, env: env, dir: dir}.exec(t)
	if list.code != 0 || !strings.Contains(list.stdout, "· 1 subagent run") {
		t.Fatalf("coder sessions:\n%s", list.stdout)
	}
	again := run{args: []string{"--resume", id, "-p", "and now?"}, env: env, dir: dir}.exec(t)
	if again.code != 0 || strings.TrimSpace(again.stdout) != "Still purple." {
		t.Fatalf("resume: %d %q %q", again.code, again.stdout, again.stderr)
	}
	if body := string(srv.Requests()[len(srv.Requests())-1].Body); strings.Contains(body, "sub_call_read") {
		t.Fatalf("the resumed parent was sent the subagent's tool call:\n%s", body)
	}

	// The readable mirror has them too.
	var snap struct {
		Messages  []json.RawMessage `json:"messages"`
		Subagents []struct {
			TaskCallID string            `json:"task_call_id"`
			Agent      string            `json:"agent"`
			Messages   []json.RawMessage `json:"messages"`
		} `json:"subagents"`
	}
	if err := json.Unmarshal([]byte(readFile(t, dir, filepath.Join(".coder", "sessions", id+".json"))), &snap); err != nil {
		t.Fatal(err)
	}
	if len(snap.Subagents) != 1 || snap.Subagents[0].TaskCallID != "task_call_7" || snap.Subagents[0].Agent != "explore" ||
		!strings.Contains(string(snap.Subagents[0].Messages[1]), "sub_call_read") {
		t.Fatalf("snapshot subagents: %+v", snap.Subagents)
	}
	for _, m := range snap.Messages {
		if strings.Contains(string(m), "sub_call_read") {
			t.Fatalf("snapshot parent message holds the subagent's call: %s", m)
		}
	}
}
