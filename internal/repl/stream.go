package repl

import "strings"

// lineRenderer turns a stream's text into terminal rows, line by line.
type lineRenderer interface {
	// line renders a complete line; it may hold it back (nil) until a
	// later line completes the block (a table).
	line(src string, cols int) []string
	// flush renders whatever is held, at the stream's end.
	flush(cols int) []string
	// preview renders an incomplete line; stable reports that all its rows
	// but the last are final and may be committed.
	preview(partial string, cols int) (rows []string, stable bool)
}

// streamer cuts a stream of text chunks into rows: complete rows are
// committed to the scrollback as soon as they are final, the rest is shown
// in the live region. A line whose first rows were committed keeps the
// width it was laid out at until it completes, so nothing is repeated or
// lost when the terminal is resized mid-line.
type streamer struct {
	r       lineRenderer
	partial string
	done    int // rows of the partial line already committed
	cols    int // the width the partial line is laid out at
}

// write takes a chunk and returns the rows to commit now.
func (s *streamer) write(chunk string, cols int) []string {
	var out []string
	s.partial += chunk
	for {
		i := strings.IndexByte(s.partial, '\n')
		if i < 0 {
			break
		}
		line := s.partial[:i]
		s.partial = s.partial[i+1:]
		rows := s.r.line(line, s.width(cols))
		if s.done < len(rows) {
			out = append(out, rows[s.done:]...)
		}
		s.done, s.cols = 0, 0
	}
	if s.partial != "" {
		w := s.width(cols)
		if rows, stable := s.r.preview(s.partial, w); stable && len(rows)-1 > s.done {
			out = append(out, rows[s.done:len(rows)-1]...)
			s.done, s.cols = len(rows)-1, w
		}
	}
	return out
}

// live is what to show of the incomplete line.
func (s *streamer) live(cols int) []string {
	if s.partial == "" {
		return nil
	}
	rows, _ := s.r.preview(s.partial, s.width(cols))
	if s.done < len(rows) {
		return rows[s.done:]
	}
	return nil
}

// finish ends the stream: the incomplete line is rendered as complete and
// anything held is flushed.
func (s *streamer) finish(cols int) []string {
	var out []string
	if s.partial != "" {
		rows := s.r.line(s.partial, s.width(cols))
		if s.done < len(rows) {
			out = append(out, rows[s.done:]...)
		}
	}
	out = append(out, s.r.flush(cols)...)
	s.partial, s.done, s.cols = "", 0, 0
	return out
}

func (s *streamer) width(cols int) int {
	if s.done > 0 && s.cols > 0 {
		return s.cols
	}
	return cols
}

// plainRenderer wraps text at word boundaries with one attribute: raw
// answers (ui.markdown false) and reasoning.
type plainRenderer struct {
	st Style
	a  attr
}

func (p plainRenderer) line(src string, cols int) []string {
	if src == "" {
		return []string{""}
	}
	body := strings.TrimLeft(src, " ")
	lead := []span{{text: src[:len(src)-len(body)]}}
	return wrapSpans(p.st, []span{{text: expandTabs(body), a: p.a}}, cols, lead, lead)
}

func (plainRenderer) flush(int) []string { return nil }

func (p plainRenderer) preview(partial string, cols int) ([]string, bool) {
	return p.line(partial, cols), true
}
