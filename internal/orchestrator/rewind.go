package orchestrator

import (
	"context"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/event"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/session"
)

// TurnInfo is one turn of the history, as /rewind lists it.
type TurnInfo struct {
	// Number is its position among the history's turns, from 1.
	Number int
	// Turn is its number in the session (its undo snapshot's).
	Turn int
	// Index is its user message's position in the history.
	Index int
	// Input is what the person sent, without what coder attached.
	Input string
}

// Turns lists the turns the history holds, oldest first: the user
// messages that opened one (a turn compacted away is gone from the list).
func (o *Orchestrator) Turns() []TurnInfo {
	var out []TurnInfo
	for i, m := range o.conv.messages() {
		if m.Role == chat.RoleUser && m.Turn > 0 {
			out = append(out, TurnInfo{Number: len(out) + 1, Turn: m.Turn, Index: i, Input: PersonText(m.Content)})
		}
	}
	return out
}

// RewindConversation takes the history back to before turn number (a
// TurnInfo.Number): that turn's message and everything after it go, and
// the session is saved at once. Sessions stay linear: what goes is gone.
func (o *Orchestrator) RewindConversation(ctx context.Context, number int) (TurnInfo, error) {
	turns := o.Turns()
	if number < 1 || number > len(turns) {
		return TurnInfo{}, fmt.Errorf("no turn %d: the history has %s", number, plural.Count(len(turns), "turn", "turns"))
	}
	t := turns[number-1]
	msgs := o.conv.messages()
	kept := make([]chat.Message, t.Index)
	copy(kept, msgs[:t.Index])
	if err := o.conv.replace(ctx, kept, false); err != nil {
		return TurnInfo{}, err
	}
	o.emitContext()
	return t, nil
}

// NoteRewind tells the model the files were put back as they were before
// an earlier turn while the conversation stayed (a code-only /rewind).
func (o *Orchestrator) NoteRewind(ctx context.Context, t TurnInfo, restored []string) error {
	if len(restored) == 0 {
		return nil
	}
	note := fmt.Sprintf("[rewind] The user ran /rewind: %s were put back as they were before their request %q; "+
		"whatever the turns since did to these files is gone. Read them again before relying on their content.",
		strings.Join(restored, ", "), session.TitleFrom(t.Input))
	if err := o.conv.append(ctx, chat.Message{Role: chat.RoleUser, Content: note}); err != nil {
		return err
	}
	o.emitContext()
	o.emit(event.Notice{Text: "the model is told the files changed"})
	return nil
}
