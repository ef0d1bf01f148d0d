package screen

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/repl/style"
)

// vt is a small terminal for tests: it interprets what the screen writes
// (printing with auto-wrap and a pending wrap at the margin, CR, LF with
// scrolling into a scrollback, cursor moves, erase in line, clear screen)
// and ignores attributes. It does not reflow on resize; tmux tests do.
type vt struct {
	cols, rows int
	grid       [][]rune
	scrollback []string
	x, y       int
	pending    bool // the cursor is past the last column
}

func newVT(cols, rows int) *vt {
	v := &vt{cols: cols, rows: rows}
	for range rows {
		v.grid = append(v.grid, v.blank())
	}
	return v
}

// widen makes the terminal wider, as a terminal that does not reflow does:
// rows keep their content.
func (v *vt) widen(cols int) {
	for y := range v.grid {
		v.grid[y] = append(v.grid[y], []rune(strings.Repeat(" ", cols-v.cols))...)
	}
	v.cols = cols
}

func (v *vt) blank() []rune { return []rune(strings.Repeat(" ", v.cols)) }

func (v *vt) lf() {
	if v.y == v.rows-1 {
		v.scrollback = append(v.scrollback, v.row(0))
		v.grid = append(v.grid[1:], v.blank())
		return
	}
	v.y++
}

func (v *vt) put(r rune) {
	w := style.RuneWidth(r)
	if w == 0 {
		return
	}
	if v.pending || v.x+w > v.cols {
		v.x, v.pending = 0, false
		v.lf()
	}
	v.grid[v.y][v.x] = r
	if w == 2 && v.x+1 < v.cols {
		v.grid[v.y][v.x+1] = 0 // the second cell of a wide character
	}
	v.x += w
	if v.x >= v.cols {
		v.x, v.pending = v.cols-1, true
	}
}

func (v *vt) Write(p []byte) (int, error) {
	s := string(p)
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\r':
			v.x, v.pending = 0, false
			i++
		case c == '\n':
			v.pending = false
			v.lf()
			i++
		case c == 0x1b && i+1 < len(s) && s[i+1] == '[':
			j := i + 2
			for j < len(s) && (s[j] < 0x40 || s[j] > 0x7e) {
				j++
			}
			v.csi(s[i+2:j], s[j])
			i = j + 1
		default:
			r, size := utf8.DecodeRuneInString(s[i:])
			v.put(r)
			i += size
		}
	}
	return len(p), nil
}

func (v *vt) csi(params string, final byte) {
	if strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") || strings.HasPrefix(params, "<") {
		return
	}
	n := 1
	if params != "" && !strings.Contains(params, ";") {
		n, _ = strconv.Atoi(params)
	}
	switch final {
	case 'A':
		v.y, v.pending = max(v.y-n, 0), false
	case 'B':
		v.y, v.pending = min(v.y+n, v.rows-1), false
	case 'C':
		v.x, v.pending = min(v.x+n, v.cols-1), false
	case 'H':
		row, col := 1, 1
		if f := strings.Split(params, ";"); len(f) == 2 {
			row, _ = strconv.Atoi(f[0])
			col, _ = strconv.Atoi(f[1])
		}
		v.y, v.x, v.pending = row-1, col-1, false
	case 'K':
		from := v.x
		if params == "2" {
			from = 0
		}
		for i := from; i < v.cols; i++ {
			v.grid[v.y][i] = ' '
		}
	case 'J':
		if params == "2" {
			for y := range v.grid {
				v.scrollback = append(v.scrollback, v.row(y))
				v.grid[y] = v.blank()
			}
		}
	}
}

// lines is the scrollback and the screen, trailing blank lines dropped.
func (v *vt) lines() []string {
	out := append([]string(nil), v.scrollback...)
	for y := range v.grid {
		out = append(out, v.row(y))
	}
	for len(out) > 0 && out[len(out)-1] == "" {
		out = out[:len(out)-1]
	}
	return out
}

// row is screen row y as text.
func (v *vt) row(y int) string {
	return strings.TrimRight(strings.ReplaceAll(string(v.grid[y]), "\x00", ""), " ")
}

func (v *vt) text() string { return strings.Join(v.lines(), "\n") }
