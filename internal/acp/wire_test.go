package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestCheckMessage(t *testing.T) {
	for _, tc := range []struct {
		line string
		code int
		id   string
	}{
		{`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","method":"session/cancel","params":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":"a","result":{}}`, 0, ""},
		{`{"jsonrpc":"2.0","id":7,"error":{"code":1,"message":"x"}}`, 0, ""},
		{`not json`, codeParseError, ""},
		{`{"jsonrpc":"2.0","id":1,"method":`, codeParseError, ""},
		{`[{"jsonrpc":"2.0","id":1,"method":"x"}]`, codeInvalidRequest, ""},
		{`42`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":{"x":1},"method":"x"}`, codeInvalidRequest, ""},
		{`{"jsonrpc":"2.0","id":3,"method":""}`, codeInvalidRequest, "3"},
		{`{"jsonrpc":"2.0","id":4,"method":5}`, codeInvalidRequest, "4"},
		{`{"jsonrpc":"2.0","id":5}`, codeInvalidRequest, "5"},
		{`{}`, codeInvalidRequest, ""},
	} {
		code, _, id := checkMessage([]byte(tc.line))
		if code != tc.code || string(id) != tc.id {
			t.Errorf("%s: code %d id %q, want %d %q", tc.line, code, id, tc.code, tc.id)
		}
	}
}

// lockedBuffer collects what the agent writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) lines() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return strings.Split(strings.TrimSpace(l.b.String()), "\n")
}

// Garbage is answered on the output, good messages pass through in order,
// an oversized line is refused without ending the stream.
func TestScreenAnswersWhatTheSDKWouldDrop(t *testing.T) {
	var out lockedBuffer
	huge := `{"jsonrpc":"2.0","id":9,"method":"x","params":"` + strings.Repeat("a", maxMessage) + `"}`
	in := strings.Join([]string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize"}`,
		`garbage`,
		huge,
		``,
		`{"jsonrpc":"2.0","id":2,"method":"session/new"}` + "\r",
	}, "\n")
	r, start := screen(strings.NewReader(in), newWireOut(&out), slog.New(slog.DiscardHandler))
	start()
	passed, err := io.ReadAll(r)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"jsonrpc":"2.0","id":1,"method":"initialize"}` + "\n" + `{"jsonrpc":"2.0","id":2,"method":"session/new"}` + "\n"
	if string(passed) != want {
		t.Fatalf("passed on %q", passed)
	}
	got := out.lines()
	if len(got) != 2 || !strings.Contains(got[0], `"code":-32700`) || !strings.Contains(got[1], `"code":-32600`) {
		t.Fatalf("answers %q", got)
	}
	for _, l := range got {
		var m struct {
			JSONRPC string          `json:"jsonrpc"`
			ID      json.RawMessage `json:"id"`
		}
		if json.Unmarshal([]byte(l), &m) != nil || m.JSONRPC != "2.0" || string(m.ID) != "null" {
			t.Fatalf("not a JSON-RPC error response: %s", l)
		}
	}
}

func TestReadLineLimit(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("12345\n123456\nabc"), 16)
	for _, want := range []struct {
		line    string
		tooLong bool
	}{{"12345", false}, {"", true}, {"abc", false}} {
		line, tooLong, _ := readLine(br, 5)
		if string(line) != want.line || tooLong != want.tooLong {
			t.Fatalf("got %q %v, want %+v", line, tooLong, want)
		}
	}
}

// The hook runs once the response carrying its session id is written, and
// not for other lines.
func TestAfterResponseHook(t *testing.T) {
	var out lockedBuffer
	w := newWireOut(&out)
	fired := make(chan string, 2)
	w.afterResponse("s1", func() { fired <- "s1" })
	for _, line := range []string{
		`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s1"}}`,
		`{"jsonrpc":"2.0","id":1,"result":{"sessionId":"s2"}}`,
	} {
		if _, err := w.Write([]byte(line + "\n")); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case <-fired:
		t.Fatal("the hook fired before its response")
	case <-time.After(50 * time.Millisecond):
	}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":2,"result":{"sessionId":"s1","modes":{}}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fired:
	case <-time.After(10 * time.Second):
		t.Fatal("the hook did not fire after its response")
	}
	if _, err := w.Write([]byte(`{"jsonrpc":"2.0","id":3,"result":{"sessionId":"s1"}}` + "\n")); err != nil {
		t.Fatal(err)
	}
	select {
	case <-fired:
		t.Fatal("the hook fired twice")
	case <-time.After(50 * time.Millisecond):
	}
}
