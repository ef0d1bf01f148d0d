package orchestrator

import (
	"context"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
)

// Replay is a compact account of the session's history — the inputs, the
// answers and one line per tool call, no tool output — for a front end to
// show where a resumed session stands. At most limit entries, the newest;
// only their tool calls are decoded (for their summaries), so a long
// session costs little.
func (o *Orchestrator) Replay(limit int) event.Replay {
	s := o.conv.sess
	type entry struct {
		event.ReplayEntry
		call *chat.ToolCall
	}
	var entries []entry
	failed := map[string]bool{}
	for i, m := range s.Messages {
		switch m.Role {
		case chat.RoleTool:
			failed[m.ToolCallID] = m.IsError
		case chat.RoleUser:
			if text := PersonText(m.Content); text != "" {
				entries = append(entries, entry{ReplayEntry: event.ReplayEntry{Role: event.ReplayUser, Text: text}})
			}
		case chat.RoleAssistant:
			if t := strings.TrimSpace(m.Content); t != "" {
				entries = append(entries, entry{ReplayEntry: event.ReplayEntry{Role: event.ReplayAnswer, Text: t, Interrupted: m.Interrupted}})
			}
			for j := range m.ToolCalls {
				entries = append(entries, entry{call: &s.Messages[i].ToolCalls[j]})
			}
		}
	}
	r := event.Replay{SessionID: s.ID, Title: s.Title, Messages: len(s.Messages)}
	if limit > 0 && len(entries) > limit {
		r.Omitted, entries = len(entries)-limit, entries[len(entries)-limit:]
	}
	for _, e := range entries {
		if tc := e.call; tc != nil {
			c := o.tools.Decode(*tc)
			e.ReplayEntry = event.ReplayEntry{Role: event.ReplayTool, Tool: tc.Name, Text: c.Summary, OK: c.Failure == nil && !failed[tc.ID]}
		}
		r.Entries = append(r.Entries, e.ReplayEntry)
	}
	return r
}

// PersonText is what a person wrote in a stored user message: without the
// attached files and reminders the core added, and nothing for the core's
// own requests (auto-verify). Every front end that replays a session shows
// this.
func PersonText(content string) string {
	if strings.HasPrefix(content, "[auto-verify]") {
		return ""
	}
	for _, cut := range []string{"\n\n[file ", "\n\n[directory ", "\n\n<system-reminder>"} {
		if i := strings.Index(content, cut); i >= 0 {
			content = content[:i]
		}
	}
	return strings.TrimSpace(content)
}

// NoteUndo tells the model that a person reverted files with /undo: a note
// joins the history, so the next model call does not work from the files
// as the last turn left them.
func (o *Orchestrator) NoteUndo(ctx context.Context, restored []string) error {
	if len(restored) == 0 {
		return nil
	}
	note := "[undo] The user ran /undo: " + strings.Join(restored, ", ") +
		" were restored to their content before the last turn changed them. Whatever that turn did to these files is gone; read them again before relying on their content."
	if err := o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: note}); err != nil {
		return err
	}
	o.emitContext()
	return nil
}
