package session

import (
	"reflect"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

func TestRepairInterrupted(t *testing.T) {
	t.Parallel()
	user := func(c string) chat.Message { return chat.Message{Role: chat.RoleUser, Content: c} }
	calls := func(ids ...string) chat.Message {
		m := chat.Message{Role: chat.RoleAssistant, Content: "calling"}
		for _, id := range ids {
			m.ToolCalls = append(m.ToolCalls, chat.ToolCall{ID: id, Name: "bash", Arguments: "{}"})
		}
		return m
	}
	result := func(id string) chat.Message {
		return chat.Message{Role: chat.RoleTool, ToolCallID: id, ToolName: "bash", Content: "done"}
	}
	stub := func(id string) chat.Message {
		return chat.Message{Role: chat.RoleTool, ToolCallID: id, ToolName: "bash", Content: InterruptedResult, IsError: true}
	}
	answer := chat.Message{Role: chat.RoleAssistant, Content: "done"}
	cases := []struct {
		name      string
		in, want  []chat.Message
		repaired  int
		generated bool // Generation incremented
	}{
		{"empty", nil, nil, 0, false},
		{"complete", []chat.Message{user("a"), calls("1"), result("1"), answer}, nil, 0, false},
		{"ends with calls", []chat.Message{user("a"), calls("1", "2")},
			[]chat.Message{user("a"), calls("1", "2"), stub("1"), stub("2")}, 2, false},
		{"ends after some results", []chat.Message{user("a"), calls("1", "2", "3"), result("1")},
			[]chat.Message{user("a"), calls("1", "2", "3"), result("1"), stub("2"), stub("3")}, 2, false},
		{"results out of order", []chat.Message{calls("1", "2"), result("2")},
			[]chat.Message{calls("1", "2"), result("2"), stub("1")}, 1, false},
		{"gap in the middle", []chat.Message{user("a"), calls("1"), user("b"), calls("2"), result("2")},
			[]chat.Message{user("a"), calls("1"), stub("1"), user("b"), calls("2"), result("2")}, 1, true},
		{"repeated call id", []chat.Message{calls("1", "1")},
			[]chat.Message{calls("1", "1"), stub("1")}, 1, false},
		{"assistant without calls", []chat.Message{user("a"), answer}, nil, 0, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := &Session{Messages: append([]chat.Message(nil), tc.in...)}
			if got, _ := RepairInterrupted(s); got != tc.repaired {
				t.Errorf("repaired = %d, want %d", got, tc.repaired)
			}
			want := tc.want
			if want == nil {
				want = tc.in
			}
			if !reflect.DeepEqual(s.Messages, want) {
				t.Errorf("messages:\n got %+v\nwant %+v", s.Messages, want)
			}
			if (s.Generation == 1) != tc.generated {
				t.Errorf("generation = %d", s.Generation)
			}
			if again, _ := RepairInterrupted(s); again != 0 {
				t.Error("second repair changed something")
			}
		})
	}
}

// A call recorded as started gets "outcome unknown", the others "not
// executed"; the record is used once.
func TestRepairTellsStartedFromNotRun(t *testing.T) {
	t.Parallel()
	s := &Session{Messages: []chat.Message{
		{Role: chat.RoleUser, Content: "go"},
		{Role: chat.RoleAssistant, ToolCalls: []chat.ToolCall{{ID: "1", Name: "bash"}, {ID: "2", Name: "bash"}}},
	}, Started: map[string]bool{"1": true}}
	repaired, started := RepairInterrupted(s)
	if repaired != 2 || started != 1 || s.Started != nil {
		t.Fatalf("repaired %d, started %d, %v", repaired, started, s.Started)
	}
	if s.Messages[2].Content != StartedResult || s.Messages[3].Content != InterruptedResult {
		t.Fatalf("results %q / %q", s.Messages[2].Content, s.Messages[3].Content)
	}
}
