package acp

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// A mode chosen while a turn runs applies at the turn's next model call:
// the editor hears current_mode_update before the prompt returns, and that
// call already has plan mode's tools and prompt.
func TestServeModeSwitchAppliesAtTheNextModelCall(t *testing.T) {
	inPlan := func(r llmtest.Request) error {
		if slices.Contains(r.ToolNames(), "write") || !strings.Contains(r.System(), "# Plan mode") {
			return errors.New("the model call after the switch was not in plan mode")
		}
		return nil
	}
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("bash", `{"command":"echo x > made.txt"}`)),
		{Text: "planned", Check: inPlan},
	}})
	conn, ed, dir := serveInProcess(t, &coreFactory{url: srv.OpenAIBaseURL()})
	sid := newSessionIn(t, conn, dir)
	ctx := context.Background()
	type result struct {
		stop  sdk.StopReason
		modes int
	}
	done := make(chan result, 1)
	go func() {
		resp, err := conn.Prompt(ctx, sdk.PromptRequest{SessionId: sid, Prompt: promptText("make it")})
		if err != nil {
			t.Error(err)
		}
		done <- result{resp.StopReason, len(ed.seen(sid, isMode))}
	}()
	var a ask
	select {
	case a = <-ed.asks:
	case <-time.After(20 * time.Second):
		t.Fatal("no permission request")
	}
	if _, err := conn.SetSessionMode(ctx, sdk.SetSessionModeRequest{SessionId: sid, ModeId: "plan"}); err != nil {
		t.Fatal(err)
	}
	a.reply <- string(a.req.Options[0].OptionId) // allow once: the call admitted in build mode runs
	var r result
	select {
	case r = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the prompt did not return")
	}
	if r.stop != sdk.StopReasonEndTurn || r.modes != 1 {
		t.Fatalf("stop %q, %d mode updates before the prompt returned (want 1)", r.stop, r.modes)
	}
	if reqs := srv.Requests(); len(reqs) != 2 || reqs[1].CheckErr != nil {
		t.Fatalf("model calls: %d, the second in plan mode: %v", len(reqs), reqs[len(reqs)-1].CheckErr)
	}
}
