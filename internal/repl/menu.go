package repl

import (
	"context"
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/repl/style"
)

// menuRows is how many candidates the menu shows at once.
const menuRows = 8

// menu is the completion menu under the prompt: Tab's candidates, one of
// them selected. ↑/↓ (Tab, Shift+Tab) move the selection, Enter takes it
// into the input, Esc closes the menu and leaves the input as it was.
// Typing goes to the input and narrows the menu; any other key closes it
// and does what it does.
type menu struct {
	start int      // where the completed word starts in the input
	items []string // the candidates, each the whole word
	notes []string // a line about each (a command's summary), or none
	sel   int
}

// suffix is what follows candidate i once taken: a space after a
// finished word, nothing after a directory (go on into it).
func (m *menu) suffix(i int) string {
	if strings.HasSuffix(m.items[i], "/") && !strings.HasPrefix(m.items[i], "/") {
		return ""
	}
	return " "
}

func (r *REPL) menuKey(ctx context.Context, ev uv.KeyPressEvent) {
	m := r.menu
	switch ev.String() {
	case "up", "ctrl+p", "shift+tab":
		m.sel = (m.sel + len(m.items) - 1) % len(m.items)
	case "down", "ctrl+n", "tab":
		m.sel = (m.sel + 1) % len(m.items)
	case "enter":
		r.ed.replaceWord(m.start, m.items[m.sel]+m.suffix(m.sel))
		r.menu = nil
	case "esc", "ctrl+g":
		r.menu = nil
	case "backspace", "ctrl+h":
		r.menu = nil
		r.key(ctx, ev)
		r.narrowMenu(ctx, m)
	default:
		r.menu = nil
		r.key(ctx, ev)
		if ev.Text != "" && ev.Mod&(uv.ModCtrl|uv.ModAlt) == 0 && ev.Text != " " {
			r.narrowMenu(ctx, m)
		}
	}
}

// narrowMenu opens the menu again on what the word has become, keeping
// the selected candidate when it still matches.
func (r *REPL) narrowMenu(ctx context.Context, was *menu) {
	m, ok := r.candidates(ctx)
	if !ok || len(m.items) == 0 {
		return
	}
	for i, it := range m.items {
		if it == was.items[was.sel] {
			m.sel = i
		}
	}
	r.menu = m
}

// menuLines are the menu's rows at cols columns: the candidates around the
// selected one, each with its note, and a line saying how to use it.
func (r *REPL) menuLines(cols int) []string {
	m, st := r.menu, r.o.Style
	first := min(max(m.sel-menuRows/2, 0), max(len(m.items)-menuRows, 0))
	last := min(first+menuRows, len(m.items))
	w := 0
	for _, it := range m.items[first:last] {
		w = max(w, style.Width(it))
	}
	w = min(w, max(cols/2, 12))
	var rows []string
	for i := first; i < last; i++ {
		item := style.Truncate(m.items[i], w)
		row := item + strings.Repeat(" ", w-style.Width(item))
		if i < len(m.notes) && m.notes[i] != "" {
			row += "  " + st.Dim(m.notes[i])
		}
		if i == m.sel {
			rows = append(rows, style.Truncate(st.Cyan("› ")+st.Reverse(item)+row[len(item):], cols))
			continue
		}
		rows = append(rows, style.Truncate("  "+row, cols))
	}
	foot := "↑↓ select · enter take · esc close"
	if len(m.items) > last-first {
		foot = strings.Join([]string{plural.Count(len(m.items), "match", "matches"), foot}, " · ")
	}
	return append(rows, style.Truncate(st.Dim("  "+foot), cols))
}
