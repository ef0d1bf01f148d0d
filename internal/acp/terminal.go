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
	Notes      string `json:"notes"`
}

// bashContent is how a bash call's output reaches the editor when coder
// ran it itself: text, in a fenced block, with the exit status under it. ok
// is false when result is not a run's output.
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

// terminalContent is a finished bash call that ran in the editor's
// terminal: the terminal (the editor shows its output, kept after release)
// and the status line under it.
func terminalContent(terminalID, result string) []sdk.ToolCallContent {
	out := []sdk.ToolCallContent{sdk.ToolTerminalRef(terminalID)}
	var r bashRun
	if json.Unmarshal([]byte(result), &r) != nil {
		return out
	}
	status := r.Error
	if status == "" && r.ExitCode != nil {
		status = fmt.Sprintf("exit %d · %dms", *r.ExitCode, r.DurationMS)
	}
	if r.Notes != "" {
		status = strings.TrimSpace(status + "\n" + r.Notes)
	}
	if status != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock(status)))
	}
	return out
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
