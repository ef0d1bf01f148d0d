//go:build e2e

package e2e

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// rawACP is `coder acp` driven line by line, as a minimal editor would.
type rawACP struct {
	t      *testing.T
	cmd    *exec.Cmd
	in     io.WriteCloser
	lines  chan string
	all    []string // every stdout line, in order
	stderr bytes.Buffer
}

func startRawACP(t *testing.T, env map[string]string, dir string) *rawACP {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, coderBin, "acp")
	cmd.Dir = dir
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	r := &rawACP{t: t, cmd: cmd, lines: make(chan string, 100)}
	cmd.Stderr = &r.stderr
	var err error
	if r.in, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	return r
}

func (r *rawACP) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.in, line+"\n"); err != nil {
		r.t.Fatal(err)
	}
}

// next reads the next stdout line as a JSON-RPC message; every line must be one.
func (r *rawACP) next() map[string]any {
	r.t.Helper()
	select {
	case line, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("coder acp closed stdout; stderr:\n%s", r.stderr.String())
		}
		r.all = append(r.all, line)
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil || m["jsonrpc"] != "2.0" {
			r.t.Fatalf("stdout line is not a JSON-RPC message: %q", line)
		}
		return m
	case <-time.After(30 * time.Second):
		r.t.Fatalf("no message from coder acp; stderr:\n%s", r.stderr.String())
	}
	return nil
}

// until reads messages up to the response to id, returning the others.
func (r *rawACP) until(id float64) (resp map[string]any, others []map[string]any) {
	r.t.Helper()
	for {
		m := r.next()
		if m["id"] == id && m["method"] == nil {
			return m, others
		}
		others = append(others, m)
	}
}

// A minimal editor speaking raw JSON-RPC: malformed lines are answered with
// errors and the connection goes on, the version is negotiated, the command
// list follows session/new's response, a / command and a ! command (whose
// approval the editor grants) run without the model, and stdout carries
// nothing but protocol messages.
func TestACPRawProtocol(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{})
	dir := t.TempDir()
	r := startRawACP(t, providerEnv(t, srv, "openai"), dir)

	r.send(`this is not json`)
	if m := r.next(); m["error"].(map[string]any)["code"] != -32700.0 || m["id"] != nil {
		t.Fatalf("answer to garbage: %v", m)
	}
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":99,"clientCapabilities":{}}}`)
	if resp, _ := r.until(1); resp["result"].(map[string]any)["protocolVersion"] != 1.0 {
		t.Fatalf("version negotiation: %v", resp)
	}
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"relative/dir","mcpServers":[]}}`)
	if resp, _ := r.until(2); resp["error"].(map[string]any)["code"] != -32602.0 {
		t.Fatalf("a relative cwd: %v", resp)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	resp, _ := r.until(3)
	sid, _ := resp["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", resp)
	}
	if m := r.next(); m["method"] != "session/update" || update(m)["sessionUpdate"] != "available_commands_update" {
		t.Fatalf("after session/new's response: %v", m)
	}

	r.send(`{"jsonrpc":"2.0","id":4,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"/help"}]}}`)
	resp, others := r.until(4)
	if resp["result"].(map[string]any)["stopReason"] != "end_turn" || !strings.Contains(chunks(others), "Commands:") {
		t.Fatalf("/help: %v %q", resp, chunks(others))
	}

	r.send(`{"jsonrpc":"2.0","id":5,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"!echo hi-from-bang"}]}}`)
	var seen []map[string]any
	for {
		m := r.next()
		if m["method"] == "session/request_permission" {
			r.send(`{"jsonrpc":"2.0","id":` + string(mustJSON(t, m["id"])) + `,"result":{"outcome":{"outcome":"selected","optionId":"allow_once"}}}`)
			continue
		}
		if m["id"] == 5.0 {
			if m["result"].(map[string]any)["stopReason"] != "end_turn" {
				t.Fatalf("! command: %v", m)
			}
			break
		}
		seen = append(seen, m)
	}
	if !strings.Contains(chunks(seen), "hi-from-bang") {
		t.Fatalf("! command output: %q", chunks(seen))
	}
	if len(srv.Requests()) != 0 {
		t.Fatalf("/ and ! commands called the model %d times", len(srv.Requests()))
	}

	r.in.Close()
	for range r.lines { // drain; next() already checked each message it read
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("coder acp after the editor closed stdin: %v\n%s", err, r.stderr.String())
	}
	if strings.Contains(strings.Join(r.all, "\n")+r.stderr.String(), testKey) {
		t.Fatal("the API key appeared in coder acp's output")
	}
}

// With no provider configured a session cannot start; the editor is told
// why and the connection stays usable.
func TestACPWithoutAProvider(t *testing.T) {
	dir := t.TempDir()
	r := startRawACP(t, baseEnv(t), dir)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	r.until(1)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	resp, _ := r.until(2)
	e, _ := resp["error"].(map[string]any)
	if msg, _ := e["message"].(string); msg == "" || !strings.Contains(strings.ToLower(msg), "provider") {
		t.Fatalf("session/new without a provider: %v", resp)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"session/list","params":{"cwd":` + quoteJSON(dir) + `}}`)
	if resp, _ := r.until(3); resp["result"] == nil {
		t.Fatalf("session/list after the failure: %v", resp)
	}
	r.in.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

func update(m map[string]any) map[string]any {
	p, _ := m["params"].(map[string]any)
	u, _ := p["update"].(map[string]any)
	return u
}

// chunks joins the agent message chunks among msgs.
func chunks(msgs []map[string]any) string {
	var b strings.Builder
	for _, m := range msgs {
		if u := update(m); u["sessionUpdate"] == "agent_message_chunk" {
			b.WriteString(u["content"].(map[string]any)["text"].(string))
		}
	}
	return b.String()
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// MCP servers the editor passes with session/new join coder's own: their
// tools are offered to the model and run through the same chain.
func TestACPEditorMCPServers(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("mcp__editor__echo", `{"text":"from the editor's server"}`)),
		llmtest.Text("echoed"),
	}})
	dir := t.TempDir()
	r := startRawACP(t, providerEnv(t, srv, "openai"), dir)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`)
	r.until(1)
	servers := `[{"name":"editor","command":` + quoteJSON(mcpTestServer(t)) + `,"args":[],"env":[]},` +
		`{"type":"sse","name":"old","url":"http://127.0.0.1:1/sse","headers":[]}]`
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":` + servers + `}}`)
	resp, _ := r.until(2)
	sid, _ := resp["result"].(map[string]any)["sessionId"].(string)
	if sid == "" {
		t.Fatalf("session/new: %v", resp)
	}
	r.send(`{"jsonrpc":"2.0","id":3,"method":"session/prompt","params":{"sessionId":"` + sid + `","prompt":[{"type":"text","text":"echo"}]}}`)
	resp, msgs := r.until(3)
	if resp["result"].(map[string]any)["stopReason"] != "end_turn" {
		t.Fatalf("prompt: %v", resp)
	}
	if names := strings.Join(srv.Requests()[0].ToolNames(), ","); !strings.Contains(names, "mcp__editor__echo") {
		t.Fatalf("the editor's server's tools were not offered: %s", names)
	}
	if res := lastToolResults(srv.Requests()[1]); len(res) != 1 || !strings.Contains(res[0].Text, "from the editor's server") {
		t.Fatalf("echo result: %+v", res)
	}
	finished := false
	for _, m := range msgs {
		u := update(m)
		finished = finished || (u["sessionUpdate"] == "tool_call_update" && u["status"] == "completed")
	}
	if !finished {
		t.Fatalf("no completed tool call: %v", msgs)
	}
	// The notice follows session/new's response on its own schedule.
	for !strings.Contains(chunks(msgs), "MCP server old (SSE) was not started") {
		msgs = append(msgs, r.next())
	}
	r.in.Close()
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("exit: %v", err)
	}
}

// TestACPClosingEndsTheSession: when the editor goes, each thread's session
// ends as leaving the REPL ends one: its SessionEnd hooks run (and, by the
// same call, its background tasks stop and its temp dir goes).
func TestACPClosingEndsTheSession(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{})
	dir := t.TempDir()
	env := providerEnv(t, srv, "openai")
	writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json",
		`{"hooks": {"SessionEnd": [{"hooks": [{"type": "command", "command": "echo ended > session-ended.txt"}]}]}}`+"\n")
	r := startRawACP(t, env, dir)
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{}}}`)
	r.until(1)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":` + quoteJSON(dir) + `,"mcpServers":[]}}`)
	if resp, _ := r.until(2); resp["result"] == nil {
		t.Fatalf("session/new: %v", resp)
	}
	r.in.Close()
	for range r.lines {
	}
	if err := r.cmd.Wait(); err != nil {
		t.Fatalf("coder acp after the editor closed stdin: %v\n%s", err, r.stderr.String())
	}
	if b, err := os.ReadFile(filepath.Join(dir, "session-ended.txt")); err != nil || strings.TrimSpace(string(b)) != "ended" {
		t.Fatalf("the SessionEnd hook did not run: %q %v\n%s", b, err, r.stderr.String())
	}
}
