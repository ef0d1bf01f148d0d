package repl

import (
	"sync"

	"github.com/coder-agent/coder/internal/input"
)

// inbox is what a person queued while a turn runs. The core takes the
// plain messages at its next model-call boundary (steering); commands (/,
// !) stay and run, in order, after the turn, and so does whatever the turn
// did not take. Esc drops it all.
type inbox struct {
	mu    sync.Mutex
	items []entry
	// onChange is told the queue after every change (to draw it).
	onChange func([]entry)
}

func (b *inbox) changed() {
	if b.onChange != nil {
		b.onChange(append([]entry(nil), b.items...))
	}
}

func (b *inbox) push(x entry) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.items = append(b.items, x)
	b.changed()
}

// take hands over the leading messages that are not commands.
func (b *inbox) take() []string {
	b.mu.Lock()
	defer b.mu.Unlock()
	var out []string
	for len(b.items) > 0 && !isCommand(b.items[0].text()) {
		out = append(out, b.items[0].text())
		b.items = b.items[1:]
	}
	if out != nil {
		b.changed()
	}
	return out
}

// pop takes the next item to run after a turn.
func (b *inbox) pop() (entry, bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if len(b.items) == 0 {
		return entry{}, false
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
	k := input.Parse(s).Kind
	return k == input.Command || k == input.Shell
}
