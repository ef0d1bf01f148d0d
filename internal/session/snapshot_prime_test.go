package session

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// After a resume, the first checkpoint must write exactly what a full
// re-encode would, and append to the file in place rather than rewrite it
// (a session made as the orchestrator makes one: its workspace is the
// store's).
func TestPrimedSnapshotMatchesFullEncode(t *testing.T) {
	dir := t.TempDir()
	st := openStore(t, dir, "/ws", nil)
	s := New(t0, "m", "build")
	for i := range 50 {
		s.Messages = append(s.Messages,
			chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("q%d with \"quotes\", <html> & a\nnewline", i)},
			chat.Message{Role: chat.RoleAssistant, Content: "a", ToolCalls: []chat.ToolCall{{ID: fmt.Sprint(i), Name: "read", Arguments: `{"path":"x"}`}}},
			chat.Message{Role: chat.RoleTool, ToolCallID: fmt.Sprint(i), Content: "{\n  \"nested\": {}\n}", IsError: i%2 == 0})
	}
	ctx := context.Background()
	if err := st.Checkpoint(ctx, s); err != nil {
		t.Fatal(err)
	}
	st.Close()

	st2 := openStore(t, dir, "/ws", nil)
	loaded, err := st2.Load(ctx, s.ID)
	if err != nil {
		t.Fatal(err)
	}
	if st2.snap == nil || st2.snap.file.count != len(loaded.Messages) {
		t.Fatal("the snapshot cache was not primed from disk")
	}
	before := inodeOf(t, st2.SnapshotPath(s.ID))
	loaded.Messages = append(loaded.Messages, chat.Message{Role: chat.RoleUser, Content: "next"})
	if err := st2.Checkpoint(ctx, loaded); err != nil {
		t.Fatal(err)
	}
	if inodeOf(t, st2.SnapshotPath(s.ID)) != before {
		t.Error("the first checkpoint after a resume rewrote the whole snapshot")
	}
	got, err := os.ReadFile(st2.SnapshotPath(s.ID))
	if err != nil {
		t.Fatal(err)
	}
	want, err := encodeIndented(st2.view(loaded), "")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("primed snapshot differs from a full encode")
	}
}

// TestScanMessages: the elements of the top-level "messages" array are
// found at their braces whatever a line's length, and a count that does not
// match, a file without the array, or an array that does not end as the
// encoder ends it is refused.
func TestScanMessages(t *testing.T) {
	long := strings.Repeat("x", 200<<10) // longer than the reader's buffer
	file := "{\n  \"id\": \"s\",\n  \"messages\": [\n" +
		"    {\n      \"role\": \"user\",\n      \"content\": \"" + long + "\"\n    },\n" +
		"    {\n      \"role\": \"assistant\",\n      \"nested\": {\n        \"a\": 1\n      }\n    }\n  ],\n  \"todos\": []\n}\n"
	scan := func(data string, want int) (layout, bool) {
		return scanMessages(bufio.NewReaderSize(strings.NewReader(data), 4096), want)
	}
	lay, ok := scan(file, 2)
	if !ok {
		t.Fatal("a well-formed file was refused")
	}
	if got := file[:lay.headLen]; !strings.HasSuffix(got, `"messages": [`) {
		t.Errorf("head ends %q", got[max(0, len(got)-20):])
	}
	for i, prefix := range []string{"{\n      \"role\": \"user\"", "{\n      \"role\": \"assistant\""} {
		m := file[lay.msgs[i].start:lay.msgs[i].end]
		if !strings.HasPrefix(m, prefix) || !strings.HasSuffix(m, "\n    }") {
			t.Errorf("message %d: %.40q … %q", i, m, m[max(0, len(m)-10):])
		}
	}
	if lay.end != lay.msgs[1].end || lay.size != int64(len(file)) || !strings.HasPrefix(file[lay.end:], "\n  ],") {
		t.Errorf("end %d, size %d of %d", lay.end, lay.size, len(file))
	}
	for name, tc := range map[string]struct {
		data string
		want int
	}{
		"count":        {file, 3},
		"no array":     {"{}", 0},
		"one line":     {`  "messages": [`, 0},
		"unterminated": {"{\n  \"messages\": [\n    {\n      \"role\": \"user\"\n", 1},
	} {
		if _, ok := scan(tc.data, tc.want); ok {
			t.Errorf("%s: accepted", name)
		}
	}
}

// FuzzScanMessages: the streaming scan finds exactly what the whole-file
// split it replaced found (splitWhole, kept here as the reference), for
// any bytes, through a reader whose buffer is smaller than many lines.
func FuzzScanMessages(f *testing.F) {
	f.Add("{\n  \"messages\": [\n    {\n      \"role\": \"user\"\n    },\n    {\n      \"x\": {\n        \"y\": 1\n      }\n    }\n  ]\n}\n", 2)
	f.Add("{\n  \"messages\": [\n    {\n    },\n    {\n    }, \n  ]\n}", 1)
	f.Add("\n  \"messages\": [\n    {}\n    }\n", 1)
	f.Add("{\n  \"messages\": [\n    {\n      \"content\": \""+strings.Repeat("y", 100)+"\"\n    }\n", 1)
	f.Add("  \"messages\": [\n    {\n    }\n", 1)
	f.Fuzz(func(t *testing.T, data string, want int) {
		if want < 0 || want > 1000 {
			return
		}
		msgs, headLen, end := splitWhole([]byte(data), want)
		lay, ok := scanMessages(bufio.NewReaderSize(strings.NewReader(data), 16), want)
		if ok != (msgs != nil) {
			t.Fatalf("scan ok=%v, whole split found %d messages", ok, len(msgs))
		}
		if !ok {
			return
		}
		if lay.headLen != int64(headLen) || lay.end != int64(end) || lay.size != int64(len(data)) {
			t.Fatalf("head %d end %d size %d; whole split: head %d end %d size %d", lay.headLen, lay.end, lay.size, headLen, end, len(data))
		}
		for i, m := range lay.msgs {
			if got := data[m.start:m.end]; got != string(msgs[i]) {
				t.Fatalf("message %d: %q, whole split %q", i, got, msgs[i])
			}
		}
	})
}

// splitWhole is how the snapshot's messages were found before the scan
// streamed: over the whole file in memory.
func splitWhole(data []byte, want int) (msgs [][]byte, headLen, end int) {
	key := []byte("\n  \"messages\": [\n")
	start := bytes.Index(data, key)
	if start < 0 {
		return nil, 0, 0
	}
	headLen = start + len(key) - 1
	pos := start + len(key)
	for pos < len(data) && bytes.HasPrefix(data[pos:], []byte("    {")) {
		e := bytes.Index(data[pos:], []byte("\n    }"))
		if e < 0 {
			return nil, 0, 0
		}
		msgs = append(msgs, data[pos+4:pos+e+len("\n    }")])
		pos += e + len("\n    }")
		end = pos
		if !bytes.HasPrefix(data[pos:], []byte(",\n")) {
			break
		}
		pos += 2
	}
	if len(msgs) != want {
		return nil, 0, 0
	}
	return msgs, headLen, end
}
