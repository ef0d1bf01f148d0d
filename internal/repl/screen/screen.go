// Package screen owns the terminal's output while the REPL runs: lines
// committed to the normal scrollback, and under them a live region redrawn
// in place (the streamed partial line, a command's tail, the status line,
// the queue, the prompt).
package screen

import (
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/charmbracelet/x/ansi"

	"github.com/coder-agent/coder/internal/repl/style"
)

// The live region's parts, top to bottom.
const (
	PartStream = iota // the partial line of the answer being streamed
	PartTail          // the last lines of a running command's output
	PartStatus        // what is happening, elapsed time, tokens, esc to stop
	PartQueue         // messages queued while a turn runs
	PartPrompt        // the prompt: context line and input, or a question
	PartHint          // a line under the prompt: completions, a refused answer
	numParts
)

// Screen owns the terminal's output while the REPL runs. Output goes to
// the normal scrollback (Commit), and under it sits the live region: rows
// redrawn in place (the streamed partial line, a command's tail, the status
// line, the queue and the prompt), never entering the scrollback.
//
// Redrawing never clears the screen: the cursor goes back to the top of the
// region, every row is rewritten and erased to its end, rows the region no
// longer needs are erased one by one. Erase-below (ED) is not used: at the
// top-left cell some terminals (tmux) treat it as a screen clear and push the
// old region into the scrollback, where it would stay as a stale copy.
type Screen struct {
	mu  sync.Mutex
	out io.Writer
	// size reports the terminal's columns and rows.
	size func() (cols, rows int)

	parts [numParts][]string
	// cursor is where the input cursor is within PartPrompt; hideCursor
	// hides it (no input is being edited).
	cursorRow, cursorCol int
	hideCursor           bool

	// What is on screen: the region's rows as drawn, their widths, and the
	// cursor's row and column within it, at cols columns.
	drawn          int
	widths         []int
	curRow, curCol int
	cols           int
	closed         bool

	// row is the cursor's row on the screen, when known (the terminal's
	// answer to a cursor position query, then kept up to date); see
	// reflowRoom. query counts the redraws since the last query, -1 when
	// none is waiting for its answer.
	row      int
	rowKnown bool
	query    int

	// buf gathers what one call writes, sent at its end in one write;
	// with sync (the terminal has DEC mode 2026) wrapped in synchronized
	// output, so the terminal shows the redraw whole, never half done.
	buf  strings.Builder
	sync bool

	// paused: the terminal is the shell's (Ctrl+Z); what is committed
	// meanwhile is held for Resume.
	paused bool
	held   strings.Builder
}

func New(out io.Writer, size func() (int, int)) *Screen {
	s := &Screen{out: out, size: size, hideCursor: true, query: -1}
	s.cols, _ = s.dims()
	return s
}

func (s *Screen) width() int {
	cols, _ := s.dims()
	return cols
}

func (s *Screen) dims() (cols, rows int) {
	cols, rows = s.size()
	return max(cols, 10), max(rows, 4)
}

// Commit writes text (complete lines) into the scrollback, above the live
// region.
func (s *Screen) Commit(text string) {
	if text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.redraw(text)
}

// Update commits text and replaces the live parts in set, in one redraw.
func (s *Screen) Update(text string, set map[int][]string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	changed := text != ""
	for part, rows := range set {
		if !equalRows(s.parts[part], rows) {
			s.parts[part] = rows
			changed = true
		}
	}
	if changed {
		s.redraw(text)
	}
}

// Set replaces one part of the live region and redraws it.
func (s *Screen) Set(part int, rows []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	if equalRows(s.parts[part], rows) {
		return
	}
	s.parts[part] = rows
	s.redraw("")
}

// SetPrompt replaces the prompt part and places the cursor in it.
func (s *Screen) SetPrompt(rows []string, curRow, curCol int, hint []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	if equalRows(s.parts[PartPrompt], rows) && equalRows(s.parts[PartHint], hint) &&
		s.cursorRow == curRow && s.cursorCol == curCol && !s.hideCursor && s.cols == s.width() {
		return // nothing changed: no redraw, no flicker
	}
	s.parts[PartPrompt], s.parts[PartHint] = rows, hint
	s.cursorRow, s.cursorCol, s.hideCursor = curRow, curCol, false
	s.redraw("")
}

// Resized redraws after the terminal changed size (SIGWINCH). Every redraw
// checks the size anyway; the signal only makes it happen at once.
func (s *Screen) Resized() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.redraw("")
	if !s.closed {
		s.askRow() // terminals differ in where a reflow leaves the cursor
	}
}

// Start draws the region where the cursor is, under what the shell
// showed: nothing is scrolled away. (Once output fills the screen the
// region sits at its bottom, as in any shell.)
func (s *Screen) Start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.buf.WriteString("\r")
	s.redraw("")
	s.askRow()
	s.buf.WriteString(syncQuery)
}

// Clear clears the visible screen (Ctrl+L, /clear) and draws the region at
// its top, as a shell's clear does. The region is erased first, so the
// copy a terminal keeps of the cleared screen holds no prompt.
func (s *Screen) Clear() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.erase()
	s.buf.WriteString("\x1b[H\x1b[2J")
	s.drawn, s.curRow, s.curCol = 0, 0, 0
	s.row, s.rowKnown = 0, true
	s.redraw("")
}

// Suspend erases the live region and leaves the cursor where it began,
// for a shell to take the terminal over (Ctrl+Z); Resume draws it again.
func (s *Screen) Suspend() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.erase()
	s.rowKnown, s.query, s.paused = false, -1, true
}

// Resume draws the region afresh at the cursor, after a suspend: what the
// shell printed meanwhile stays above it.
func (s *Screen) Resume() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.paused = false
	s.buf.WriteString("\r")
	s.redraw(s.held.String())
	s.held.Reset()
	s.askRow()
	s.buf.WriteString(syncQuery)
}

// Send writes a sequence that draws nothing (a bell, a notification)
// between two redraws, never in the middle of one.
func (s *Screen) Send(seq string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.closed && !s.paused {
		_, _ = io.WriteString(s.out, seq)
	}
}

// Close erases the live region for good: what follows is plain output.
func (s *Screen) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	defer s.flush()
	s.erase()
	s.flush()
	s.closed, s.sync = true, false
}

// erase removes the region and leaves the cursor where it began.
func (s *Screen) erase() {
	var b strings.Builder
	s.toTop(&b)
	for i := range s.drawn {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("\x1b[2K")
	}
	if s.drawn > 1 {
		fmt.Fprintf(&b, "\x1b[%dA", s.drawn-1)
	}
	b.WriteString("\r\x1b[?25h")
	s.buf.WriteString(b.String())
	s.drawn, s.widths, s.curRow, s.curCol = 0, nil, 0, 0
}

func (s *Screen) toTop(b *strings.Builder) {
	b.WriteString("\x1b[?25l")
	if s.curRow > 0 {
		fmt.Fprintf(b, "\x1b[%dA", s.curRow)
	}
	b.WriteString("\r")
}

// redraw writes commit (complete lines) where the region was, then the
// region under it.
func (s *Screen) redraw(commit string) {
	if s.closed {
		s.buf.WriteString(style.ExpandTabs(commit))
		return
	}
	if s.paused {
		s.held.WriteString(commit)
		return
	}
	cols, height := s.dims()
	if cols != s.cols {
		s.reflowed(cols)
	}
	var b strings.Builder
	s.toTop(&b)
	used := 0 // rows written from the region's top
	for _, line := range strings.SplitAfter(commit, "\n") {
		if line == "" {
			continue
		}
		text := style.ExpandTabs(strings.TrimSuffix(line, "\n"))
		n, full := terminalRows(text, cols)
		if k := min(n, height) - 1; k > 0 {
			// Clear the rows the line will wrap over first: a wide
			// character that does not fit leaves a cell it never writes.
			// (Past the screen's height the rows are new ones anyway.)
			b.WriteString(strings.Repeat("\x1b[2K\n", k))
			fmt.Fprintf(&b, "\x1b[%dA", k)
		}
		b.WriteString("\x1b[2K" + text)
		if !full {
			b.WriteString("\x1b[K")
		}
		b.WriteString("\r\n")
		used += n
	}
	rows, curRow, curCol := s.compose(cols)
	if pad := s.reflowRoom(rows, curRow, curCol, used, height); pad > 0 {
		b.WriteString(strings.Repeat("\x1b[2K\r\n", pad))
		used += pad
	}
	if len(rows) == 0 {
		b.WriteString("\x1b[2K")
	}
	widths := make([]int, len(rows))
	for i, r := range rows {
		if i > 0 {
			b.WriteString("\r\n")
		}
		b.WriteString("\x1b[2K" + r)
		widths[i] = style.Width(r)
	}
	last := used + max(len(rows), 1) - 1 // the row the cursor is on now
	if extra := s.drawn - (last + 1); extra > 0 {
		// A newline, not a cursor move: where the rows are gone (the
		// terminal shrank) it scrolls instead of stopping at the bottom.
		for range extra {
			b.WriteString("\r\n\x1b[2K")
		}
		fmt.Fprintf(&b, "\x1b[%dA", extra)
	}
	if len(rows) > 0 {
		if up := len(rows) - 1 - curRow; up > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", up)
		}
		b.WriteString("\r")
		if curCol > 0 {
			fmt.Fprintf(&b, "\x1b[%dC", curCol)
		}
	}
	if !s.hideCursor {
		b.WriteString("\x1b[?25h")
	}
	s.buf.WriteString(b.String())
	if s.rowKnown {
		// Where the cursor is now: the region's top, moved down by what
		// was written, the screen scrolling at its bottom.
		extra := max(s.drawn-(used+max(len(rows), 1)), 0)
		end := min(s.row-s.curRow+used+max(len(rows), 1)-1+extra, height-1) - extra
		s.row = max(end-(max(len(rows), 1)-1-curRow), 0)
	}
	if s.query >= 0 {
		s.query++
	}
	s.drawn, s.widths, s.curRow, s.curCol = len(rows), widths, curRow, curCol
}

// compose stacks the parts into the rows to draw, each cut to cols, at
// most the terminal's height less one: the stream's and the tail's oldest
// rows go first, then the prompt's rows farthest from the cursor. It
// returns the cursor's row and column (the last row's end when hidden).
func (s *Screen) compose(cols int) (rows []string, curRow, curCol int) {
	_, height := s.dims()
	budget := max(height-1, 3)
	parts := s.parts
	n := 0
	for _, p := range parts {
		n += len(p)
	}
	for _, i := range []int{PartStream, PartTail, PartQueue, PartHint} {
		if over := n - budget; over > 0 {
			cut := min(over, len(parts[i]))
			parts[i] = parts[i][cut:]
			n -= cut
		}
	}
	prompt, cursorRow := parts[PartPrompt], s.cursorRow
	if over := n - budget; over > 0 && len(prompt) > 1 {
		// Keep the rows around the cursor.
		keep := max(len(prompt)-over, 1)
		start := min(max(cursorRow-keep+1, 0), len(prompt)-keep)
		prompt, cursorRow = prompt[start:start+keep], cursorRow-start
	}
	parts[PartPrompt] = prompt
	curRow, curCol = -1, 0
	for i, p := range parts {
		if i == PartPrompt && !s.hideCursor && len(p) > 0 {
			curRow, curCol = len(rows)+min(cursorRow, len(p)-1), min(s.cursorCol, cols-1)
		}
		for _, r := range p {
			rows = append(rows, style.Truncate(style.ExpandTabs(r), cols))
		}
	}
	if curRow < 0 {
		curRow, curCol = max(len(rows)-1, 0), 0
	}
	return rows, curRow, curCol
}

// terminalRows is how many rows a terminal takes to print s at cols
// columns, wrapping at the margin (a wide character that does not fit goes
// to the next row); full reports the last row is filled to the margin.
func terminalRows(s string, cols int) (rows int, full bool) {
	rows, x := 1, 0
	for _, r := range ansi.Strip(s) {
		w := style.RuneWidth(r)
		if w == 0 {
			continue
		}
		if x+w > cols {
			rows, x = rows+1, 0
		}
		x += w
	}
	return rows, x == cols
}

func equalRows(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
