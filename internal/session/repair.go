package session

import "github.com/coder-agent/coder/internal/chat"

// InterruptedResult is the content of a tool result added by
// RepairInterrupted for a call that never ran.
const InterruptedResult = `{"ok":false,"error":"interrupted: the session ended before this tool call ran; it was not executed"}`

// StartedResult is the content of a tool result added by RepairInterrupted
// for a call that had started (Store.MarkStarted) when the session ended:
// it may have done some or all of its work.
const StartedResult = `{"ok":false,"error":"interrupted: this tool call had started when the session ended, and its outcome is unknown: it may have run in part or in full. Check its effects before running it again."}`

// RepairInterrupted makes a history that was cut short valid for the next
// model call: every assistant tool call without a result in the tool
// messages that directly follow it gets an error result, placed after the
// existing results: that it did not run, or, for a call recorded as
// started (s.Started), that its outcome is unknown. Providers reject a tool
// call without a result, and telling the model the truth keeps it from
// assuming the call did or did not run. It returns how many results were
// added, and how many of those were for started calls.
//
// When a result has to go before later messages (not only at the end), the
// history is rewritten rather than appended to, so s.Generation is
// incremented and the next Checkpoint rewrites the stored rows.
func RepairInterrupted(s *Session) (repaired, started int) {
	msgs := s.Messages
	out := make([]chat.Message, 0, len(msgs))
	midway := false
	for i := 0; i < len(msgs); {
		end := i + 1
		if msgs[i].Role == chat.RoleAssistant && len(msgs[i].ToolCalls) > 0 {
			for end < len(msgs) && msgs[end].Role == chat.RoleTool {
				end++
			}
		}
		out = append(out, msgs[i:end]...)
		missing := missingResults(msgs[i], msgs[i+1:end], s.Started)
		out = append(out, missing...)
		repaired += len(missing)
		for _, m := range missing {
			if m.Content == StartedResult {
				started++
			}
		}
		midway = midway || len(missing) > 0 && end < len(msgs)
		i = end
	}
	s.Started = nil // each has a result now
	if repaired == 0 {
		return 0, 0
	}
	s.Messages = out
	if midway {
		s.Generation++
	}
	return repaired, started
}

// missingResults returns an interrupted result for each call of m that has
// no result among results.
func missingResults(m chat.Message, results []chat.Message, started map[string]bool) []chat.Message {
	if m.Role != chat.RoleAssistant || len(m.ToolCalls) == 0 {
		return nil
	}
	have := make(map[string]bool, len(results))
	for _, r := range results {
		have[r.ToolCallID] = true
	}
	var add []chat.Message
	for _, c := range m.ToolCalls {
		if have[c.ID] {
			continue
		}
		have[c.ID] = true // a call id repeated in one message gets one result
		content := InterruptedResult
		if started[c.ID] {
			content = StartedResult
		}
		add = append(add, chat.Message{
			Role: chat.RoleTool, Content: content,
			ToolCallID: c.ID, ToolName: c.Name, IsError: true,
		})
	}
	return add
}
