package acp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// bashRun is a bash call's result as the model received it (the JSON of
// tools.BashResult); ExitCode is nil when the JSON is a refusal instead
// ({"ok":false,"error":…}: denied, cancelled before it ran).
type bashRun struct {
	ExitCode   *int   `json:"exit_code"`
	Stdout     string `json:"stdout"`
	Stderr     string `json:"stderr"`
	DurationMS int64  `json:"duration_ms"`
	Error      string `json:"error"`
}

// bashContent is how a bash call's output reaches the editor: text, in a
// fenced block, with the exit status under it. ok is false when result is
// not a run's output.
//
// Moving bash output to the editor's own terminal (the client's terminal
// capability) is planned for when `coder sandbox` exists: after coder's
// permission chain approved a call, the editor would run `coder sandbox
// --mode build|plan -- /bin/bash -c CMD` (terminal/create, so coder's
// sandbox still applies), the model would get terminal/output's text and
// the exit status, and this function would return
// sdk.ToolTerminalRef(terminalID) instead of text. That takes a command
// runner the bash tool can be given (tools.Env) and this function; nothing
// else here changes.
func bashContent(result string) (content []sdk.ToolCallContent, ok bool) {
	var r bashRun
	if json.Unmarshal([]byte(result), &r) != nil || r.ExitCode == nil {
		return nil, false
	}
	out := strings.TrimRight(r.Stdout, "\n")
	if errText := strings.TrimRight(r.Stderr, "\n"); errText != "" {
		if out != "" {
			out += "\n"
		}
		out += errText
	}
	status := fmt.Sprintf("exit %d · %dms", *r.ExitCode, r.DurationMS)
	if r.Error != "" {
		status = r.Error
	}
	text := status
	if out != "" {
		f := fence(out)
		text = f + "console\n" + out + "\n" + f + "\n" + status
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(text))}, true
}

// fence is a Markdown code fence longer than any run of backticks in s.
func fence(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
			continue
		}
		run = 0
	}
	return strings.Repeat("`", max(3, longest+1))
}
