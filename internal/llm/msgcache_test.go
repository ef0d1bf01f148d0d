package llm

import (
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// TestMessageCacheShared has two histories (a session and its subagent)
// use one provider's cache at once, each growing: every result must be
// what the message makes now, and a result handed out must not change
// under its reader while the other history replaces the cache.
func TestMessageCacheShared(t *testing.T) {
	var c MessageCache[string]
	conv := func(_ *Encoder, m *chat.Message) (string, error) { return string(m.Role) + ":" + m.Content, nil }
	var wg sync.WaitGroup
	for _, who := range []string{"parent", "sub"} {
		wg.Go(func() {
			var h []chat.Message
			var prev []string
			for i := range 200 {
				h = append(h, chat.Message{Role: chat.RoleUser, Content: fmt.Sprintf("%s %d", who, i)})
				got, err := c.Make("", h, conv)
				if err != nil {
					t.Error(err)
					return
				}
				for j := range h {
					if want, _ := conv(nil, &h[j]); got[j] != want {
						t.Errorf("%s call %d: result %d is %q, want %q", who, i, j, got[j], want)
						return
					}
				}
				for j := range prev {
					if prev[j] != fmt.Sprintf("user:%s %d", who, j) {
						t.Errorf("%s: an earlier result changed to %q", who, prev[j])
						return
					}
				}
				prev = got
			}
		})
	}
	wg.Wait()
}

// TestMessageCacheMakesOnce counts the conversions of a growing history:
// one per message, not one per message per call.
func TestMessageCacheMakesOnce(t *testing.T) {
	var c MessageCache[int]
	n := 0
	conv := func(*Encoder, *chat.Message) (int, error) { n++; return n, nil }
	var h []chat.Message
	for i := range 100 {
		h = append(h, chat.Message{Role: chat.RoleUser, Content: fmt.Sprint(i)})
		if _, err := c.Make("k", h, conv); err != nil {
			t.Fatal(err)
		}
	}
	if n != 100 {
		t.Fatalf("%d conversions for 100 messages", n)
	}
	h[50].Content = "changed"
	if _, err := c.Make("k", h, conv); err != nil || n != 150 {
		t.Fatalf("after a change at 50: %d conversions in all, want 150 (%v)", n, err)
	}
	if _, err := c.Make("other", h, conv); err != nil || n != 250 {
		t.Fatalf("after a new key: %d conversions in all, want 250 (%v)", n, err)
	}
}

// TestArenaMovesAValue writes one value in several pieces across the end
// of a chunk (json.Encoder writes a value at once today; nothing promises
// it): the value is whole in the new chunk, and the earlier one intact.
func TestArenaMovesAValue(t *testing.T) {
	var a arena
	a.begin()
	first := strings.Repeat("a", arenaChunk-10)
	_, _ = a.Write([]byte(first[:10])) // a chunk of arenaChunk
	_, _ = a.Write([]byte(first[10:])) // fills it but for 10 bytes
	one := a.end()
	a.begin()
	_, _ = a.Write([]byte("0123456789"[:5]))
	_, _ = a.Write([]byte(strings.Repeat("b", 20)))
	two := a.end()
	if string(one) != first || string(two) != "01234"+strings.Repeat("b", 20) {
		t.Fatalf("one %d bytes, two %q", len(one), two)
	}
}
