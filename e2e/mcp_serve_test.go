//go:build e2e

package e2e

import (
	"context"
	"encoding/json"
	"errors"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// mcpServeResult is the structured output of the coder and coder_reply tools.
type mcpServeResult struct {
	SessionID    string   `json:"session_id"`
	Result       string   `json:"result"`
	IsError      bool     `json:"is_error"`
	Error        string   `json:"error"`
	FilesChanged []string `json:"files_changed"`
}

// TestMCPServeWithTheOfficialGoClient drives `coder mcp serve` with the
// official MCP Go SDK's client: coder makes a file and answers with it
// and a session id, coder_reply continues that session (the model sees the
// history) and reports what its command changed; progress notifications come while a turn
// runs; a cancelled call ends its turn, and the server goes on.
func TestMCPServeWithTheOfficialGoClient(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"hello.txt","content":"hi\n"}`)),
		llmtest.Text("Wrote hello.txt."),
		{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash", `{"command":"echo 'hi there' >> hello.txt"}`)},
			Check: func(r llmtest.Request) error {
				for _, m := range r.Messages() {
					if m.Role == "assistant" && strings.Contains(m.Text, "Wrote hello.txt.") {
						return nil
					}
				}
				return errors.New("coder_reply did not continue the session")
			}},
		llmtest.Text("Edited hello.txt."),
		{Text: "A story that takes its time to arrive, word after word.",
			Faults: []llmtest.Fault{{Kind: llmtest.FaultStall, AfterChunks: 2}}},
	}})
	dir := t.TempDir()
	cmd := exec.Command(coderBin, "mcp", "serve")
	cmd.Dir = dir
	for k, v := range providerEnv(t, srv, "openai") {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var mu sync.Mutex
	var progress []string
	client := mcp.NewClient(&mcp.Implementation{Name: "e2e-agent", Version: "1.0.0"}, &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, r *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			progress = append(progress, r.Params.Message)
			mu.Unlock()
		},
	})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cs, err := client.Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tl := range tools.Tools {
		names = append(names, tl.Name)
	}
	if !slices.Equal(names, []string{"coder", "coder_reply"}) {
		t.Fatalf("tools %v", names)
	}

	// Bad input is the caller's tool error, not the end of the server.
	if bad := callCoder(ctx, t, cs, "coder", map[string]any{"prompt": "x", "cwd": "relative/dir"}); !bad.IsError ||
		!strings.Contains(bad.Error, "not an absolute path") {
		t.Fatalf("a relative cwd: %+v", bad)
	}
	first := callCoder(ctx, t, cs, "coder", map[string]any{"prompt": "make hello.txt", "cwd": dir})
	if first.IsError || first.Result != "Wrote hello.txt." || first.SessionID == "" ||
		!slices.Equal(first.FilesChanged, []string{"A hello.txt"}) {
		t.Fatalf("coder: %+v", first)
	}
	if got := readFile(t, dir, "hello.txt"); got != "hi\n" {
		t.Fatalf("hello.txt %q", got)
	}
	mu.Lock()
	seen := strings.Join(progress, " | ")
	mu.Unlock()
	if !strings.Contains(seen, "running write hello.txt") || !strings.Contains(seen, "turn completed") {
		t.Fatalf("progress notifications: %s", seen)
	}

	reply := callCoder(ctx, t, cs, "coder_reply", map[string]any{"session_id": first.SessionID, "prompt": "say hi there"})
	if reply.IsError || reply.SessionID != first.SessionID || reply.Result != "Edited hello.txt." ||
		len(reply.FilesChanged) != 1 || !strings.HasPrefix(reply.FilesChanged[0], "M hello.txt") {
		t.Fatalf("coder_reply: %+v", reply)
	}

	// Cancel a call while its model streams: the call ends, the server
	// goes on, and the session continues where the cancelled turn left it.
	callCtx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	mu.Lock()
	n := len(progress)
	mu.Unlock()
	go func() {
		_, err := cs.CallTool(callCtx, withProgress(&mcp.CallToolParams{Name: "coder_reply",
			Arguments: map[string]any{"session_id": first.SessionID, "prompt": "tell a story"}}))
		done <- err
	}()
	waitFor(t, "the cancelled call to think", func() bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Contains(progress[n:], "thinking")
	})
	stop()
	select {
	case err := <-done:
		if err == nil {
			t.Fatal("the cancelled call returned a result")
		}
	case <-time.After(30 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
	again := callCoder(ctx, t, cs, "coder_reply", map[string]any{"session_id": first.SessionID, "prompt": "go on"})
	if again.IsError || !strings.Contains(again.Result, "word after word") {
		t.Fatalf("after the cancel: %+v", again)
	}
}

func withProgress(p *mcp.CallToolParams) *mcp.CallToolParams {
	p.SetProgressToken("e2e-progress")
	return p
}

func callCoder(ctx context.Context, t *testing.T, cs *mcp.ClientSession, tool string, args map[string]any) mcpServeResult {
	t.Helper()
	res, err := cs.CallTool(ctx, withProgress(&mcp.CallToolParams{Name: tool, Arguments: args}))
	if err != nil {
		t.Fatalf("%s: %v", tool, err)
	}
	raw, _ := json.Marshal(res.StructuredContent)
	var out mcpServeResult
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatalf("%s: structured content %s: %v", tool, raw, err)
	}
	var text string
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text += tc.Text
		}
	}
	if !strings.Contains(text, out.SessionID) || (!out.IsError && !strings.Contains(text, out.Result)) {
		t.Fatalf("%s: the text content %q does not carry the result", tool, text)
	}
	return out
}
