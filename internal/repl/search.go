package repl

import (
	"strings"

	uv "github.com/charmbracelet/ultraviolet"

	"github.com/coder-agent/coder/internal/repl/style"
)

// search is Ctrl+R: a reverse search of this process's inputs, newest
// first. Typing narrows it, Ctrl+R again finds an older match, Enter (or
// an arrow) takes the match into the input line to edit or send, Esc or
// Ctrl+G leaves the line as it was.
type search struct {
	query []rune
	match int // index into history; -1 when nothing matches
}

func (r *REPL) startSearch() {
	r.search = &search{match: -1}
	r.find(len(r.ed.history) - 1)
}

// find looks for the query from history index i back.
func (r *REPL) find(i int) {
	s := r.search
	q := strings.ToLower(string(s.query))
	for ; i >= 0; i-- {
		if strings.Contains(strings.ToLower(r.ed.history[i].text()), q) {
			s.match = i
			return
		}
	}
	s.match = -1 // an earlier match no longer matches: it is not shown
}

func (r *REPL) searchKey(ev uv.KeyPressEvent) {
	s := r.search
	r.hint = ""
	switch k := ev.String(); k {
	case "ctrl+r":
		if s.match >= 0 {
			prev := s.match
			r.find(s.match - 1)
			if s.match < 0 {
				s.match = prev // the oldest match stays
				r.hint = r.o.Style.Dim("no older match")
			}
		}
	case "backspace", "ctrl+h":
		if len(s.query) > 0 {
			s.query = s.query[:len(s.query)-1]
			r.find(len(r.ed.history) - 1)
		}
	case "esc", "ctrl+g", "ctrl+c":
		r.search = nil
	case "enter", "tab", "left", "right", "up", "down", "home", "end", "ctrl+a", "ctrl+e":
		if s.match >= 0 {
			r.ed.set(r.ed.history[s.match])
			r.ed.hist = s.match
		}
		r.search = nil
	default:
		if ev.Text != "" && ev.Mod&(uv.ModCtrl|uv.ModAlt) == 0 {
			s.query = append(s.query, []rune(ev.Text)...)
			if s.match < 0 {
				r.find(len(r.ed.history) - 1)
			} else {
				r.find(s.match)
			}
		}
	}
}

// searchLayout draws the search in place of the input line.
func (r *REPL) searchLayout() inputLayout {
	s := r.search
	found := ""
	if s.match >= 0 {
		found = r.ed.history[s.match].oneLine()
	}
	label := "(reverse-i-search)`" + string(s.query) + "': "
	if s.match < 0 && len(s.query) > 0 {
		label = "(failing reverse-i-search)`" + string(s.query) + "': "
	}
	l := layoutInput(label, r.o.Style.Yellow, []rune(found), 0, r.term.cols())
	// The cursor sits at the end of the query, as in a shell.
	l.curRow, l.curCol = 1, min(style.Width(label)-3, r.term.cols()-1)
	l.rows = append([]string{r.infoRow()}, l.rows...)
	return l
}
