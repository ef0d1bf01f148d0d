package repl

import (
	"strings"
	"sync"
)

// inbox is what a person queued while a turn runs. The core takes the
// plain messages at its next model-call boundary (steering); commands (/,
// !) stay and run, in order, after the turn, and so does whatever the turn
// did not take. Esc drops it all.
type inbox struct {
	mu    sync.Mutex
	items []string
	// onChange is told the queue after every change (to draw it).
	onChange func([]string)
}

func (b *inbox) changed() {
	if b.onChange != nil {
		b.onChange(append([]string(nil), b.items...))
	}
}

func (b *inbox) push(s string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.items = append(b.items, s)
	b.changed()
}

// take hands over the leading messages that are not commands.
func (b *inbox) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := 0
	for n < len(b.items) && !isCommand(b.items[n]) {
		n++
	}
	if n == 0 {
		return nil
	}
	out := b.items[:n:n]
	b.items = b.items[n:]
	b.changed()
	return out
}

// pop takes the next item to run after a turn.
func (b *inbox) pop() (string, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.items) == 0 {
		return "", false
	}
	s := b.items[0]
	b.items = b.items[1:]
	b.changed()
	return s, true
}

func (b *inbox) clear() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.items) > 0 {
		b.items = nil
		b.changed()
	}
}

func isCommand(s string) bool {
	s = strings.TrimSpace(s)
	return strings.HasPrefix(s, "/") || strings.HasPrefix(s, "!")
}
