package acp

import (
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/orchestrator"
	"github.com/coder-agent/coder/internal/session"
	"github.com/coder-agent/coder/internal/tools"
)

// replay is a stored session as the updates that would have shown it:
// user and agent messages, thoughts, each tool call with its outcome, and
// the todo list as the plan (session/load).
func (m *mapper) replay(s *session.Session) []sdk.SessionUpdate {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []sdk.SessionUpdate
	msgs := s.Messages
	for i := 0; i < len(msgs); i++ {
		msg := msgs[i]
		switch msg.Role {
		case chat.RoleUser:
			if text := orchestrator.PersonText(msg.Content); text != "" {
				out = append(out, sdk.UpdateUserMessageText(text))
			}
		case chat.RoleAssistant:
			if msg.Reasoning != "" {
				out = append(out, sdk.UpdateAgentThoughtText(msg.Reasoning))
			}
			if text := msg.Content; text != "" {
				if msg.Interrupted {
					text += "\n\n_(interrupted)_"
				}
				out = append(out, sdk.UpdateAgentMessageText(text))
			}
			results := map[string]chat.Message{}
			j := i + 1
			for ; j < len(msgs) && msgs[j].Role == chat.RoleTool; j++ {
				results[msgs[j].ToolCallID] = msgs[j]
			}
			for _, tc := range msg.ToolCalls {
				res, ok := results[tc.ID]
				out = append(out, m.replayCall(tc, res, ok))
			}
			i = j - 1
		}
	}
	if len(s.Todos) > 0 {
		out = append(out, planUpdate(s.Todos))
	}
	return out
}

// replayCall is one stored call with its outcome, in a single tool_call.
func (m *mapper) replayCall(tc chat.ToolCall, res chat.Message, hasResult bool) sdk.SessionUpdate {
	call := &sdk.SessionUpdateToolCall{ToolCallId: sdk.ToolCallId(m.newID(tc.ID)), Title: title(tc.Name, ""),
		Kind: sdk.ToolKindOther, Status: sdk.ToolCallStatusCompleted, RawInput: rawJSON(tc.Arguments)}
	if c := m.decodeCall(tc.ID, tc.Name, tc.Arguments); c != nil {
		call.Title, call.Kind, call.Locations = title(tc.Name, c.Summary), toolKind(string(c.Kind)), m.callLocations(c)
	}
	if res.IsError || !hasResult {
		call.Status = sdk.ToolCallStatusFailed
	}
	bash, isRun := bashContent(res.Content)
	switch {
	case !hasResult:
	case tc.Name == tools.Bash && isRun:
		call.Content = bash
	case res.IsError:
		call.Content = textContent(failureText(res.Content))
	case call.Kind == sdk.ToolKindEdit, call.Kind == sdk.ToolKindOther, call.Kind == sdk.ToolKindSwitchMode:
		call.Content = textContent(firstLines(res.Content, 10))
	}
	return sdk.SessionUpdate{ToolCall: call}
}

func textContent(s string) []sdk.ToolCallContent {
	if s == "" {
		return nil
	}
	return []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock(s))}
}

// failureText is the message of a stored {"ok":false,"error":…} result.
func failureText(content string) string {
	var f struct {
		Error string `json:"error"`
	}
	if json.Unmarshal([]byte(content), &f) == nil && f.Error != "" {
		return f.Error
	}
	return firstLines(content, 10)
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(strings.TrimSpace(s), "\n", n+1)
	if len(lines) > n {
		return strings.Join(lines[:n], "\n") + "\n…"
	}
	return strings.Join(lines, "\n")
}
