package markdown

import (
	"strings"

	"github.com/coder-agent/coder/internal/repl/style"
)

// LineRenderer turns a stream's text into terminal rows, line by line.
type LineRenderer interface {
	// Line renders a complete line; it may hold it back (nil) until a
	// later line completes the block (a table).
	Line(src string, cols int) []string
	// Flush renders whatever is held, at the stream's end.
	Flush(cols int) []string
	// Preview renders an incomplete line; stable reports that all its rows
	// but the last are final and may be committed.
	Preview(partial string, cols int) (rows []string, stable bool)
}

// Streamer cuts a stream of text chunks into rows: complete rows are
// committed to the scrollback as soon as they are final, the rest is shown
// in the live region. A line whose first rows were committed keeps the
// width it was laid out at until it completes, so nothing is repeated or
// lost when the terminal is resized mid-line.
type Streamer struct {
	r       LineRenderer
	partial string
	done    int // rows of the partial line already committed
	cols    int // the width the partial line is laid out at
}

// Write takes a chunk and returns the rows to commit now.
func (s *Streamer) Write(chunk string, cols int) []string {
	var out []string
	s.partial += chunk
	for {
		i := strings.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := s.partial[:i]
		s.partial = s.partial[i+1:]
		rows := s.r.Line(line, s.width(cols))
		if s.done < len(rows) {
			out = append(out, rows[s.done:]...)
		}
		s.done, s.cols = 0, 0
	}
	if s.partial != "" {
		w := s.width(cols)
		if rows, stable := s.r.Preview(s.partial, w); stable && len(rows)-1 > s.done {
			out = append(out, rows[s.done:len(rows)-1]...)
			s.done, s.cols = len(rows)-1, w
		}
	}
	return out
}

// Live is what to show of the incomplete line.
func (s *Streamer) Live(cols int) []string {
	if s.partial == "" {
		return nil
	}
	rows, _ := s.r.Preview(s.partial, s.width(cols))
	if s.done < len(rows) {
		return rows[s.done:]
	}
	return nil
}

// Finish ends the stream: the incomplete line is rendered as complete and
// anything held is flushed.
func (s *Streamer) Finish(cols int) []string {
	var out []string
	if s.partial != "" {
		rows := s.r.Line(s.partial, s.width(cols))
		if s.done < len(rows) {
			out = append(out, rows[s.done:]...)
		}
	}
	out = append(out, s.r.Flush(cols)...)
	s.partial, s.done, s.cols = "", 0, 0
	return out
}

func (s *Streamer) width(cols int) int {
	if s.done > 0 && s.cols > 0 {
		return s.cols
	}
	return cols
}

// plainRenderer wraps text at word boundaries with one attribute: raw
// answers (ui.markdown false) and reasoning.
type plainRenderer struct {
	st style.Style
	a  attr
}

func (p plainRenderer) Line(src string, cols int) []string {
	if src == "" {
		return []string{""}
	}
	body := strings.TrimLeft(src, " ")
	lead := []span{{text: src[:len(src)-len(body)]}}
	return wrapSpans(p.st, []span{{text: style.ExpandTabs(body), a: p.a}}, cols, lead, lead)
}

func (plainRenderer) Flush(int) []string { return nil }

func (p plainRenderer) Preview(partial string, cols int) ([]string, bool) {
	return p.Line(partial, cols), true
}

// NewStreamer streams text through r.
func NewStreamer(r LineRenderer) *Streamer { return &Streamer{r: r} }

// New renders Markdown for the terminal.
func New(st style.Style) LineRenderer { return &mdRenderer{st: st} }

// Plain wraps text at word boundaries, unstyled: raw answers.
func Plain(st style.Style) LineRenderer { return plainRenderer{st: st} }

// Dim wraps text at word boundaries, dimmed: reasoning.
func Dim(st style.Style) LineRenderer { return plainRenderer{st: st, a: attrDim} }
