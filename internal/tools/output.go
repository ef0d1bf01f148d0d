package tools

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sync"
	"unicode/utf8"

	"github.com/coder-agent/coder/internal/textcut"
)

// OutputFunc receives a running command's output as the process writes it:
// stream is "stdout" or "stderr"; p is only valid during the call. It is for
// people watching a long command; the model's result is unchanged.
type OutputFunc func(stream string, p []byte)

type outputKey struct{}

// WithOutput returns a context whose tool calls report their output live to f.
func WithOutput(ctx context.Context, f OutputFunc) context.Context {
	return context.WithValue(ctx, outputKey{}, f)
}

// liveOutput is the context's OutputFunc for stream, or nil.
func liveOutput(ctx context.Context, stream string) func([]byte) {
	f, _ := ctx.Value(outputKey{}).(OutputFunc)
	if f == nil {
		return nil
	}
	return func(p []byte) { f(stream, p) }
}

type terminalKey struct{}

// WithTerminal returns a context whose tool calls report to f the terminal
// their command runs in, when a launcher runs it in a front end's own
// terminal (an editor's, under coder acp) instead of capturing its output.
func WithTerminal(ctx context.Context, f func(terminalID string)) context.Context {
	return context.WithValue(ctx, terminalKey{}, f)
}

// ShowTerminal tells the context's call that its command runs in terminal
// id, so front ends show that terminal for it. Launchers call it.
func ShowTerminal(ctx context.Context, id string) {
	if f, _ := ctx.Value(terminalKey{}).(func(string)); f != nil {
		f(id)
	}
}

const (
	// fullOutputMax bounds the file that holds a long output whole: a
	// command writing without end must not fill the disk.
	fullOutputMax = 256 << 20
)

// cutOutput is what the model is given of one stream of a command: all of
// it up to limit bytes (all when limit is 0). Past the limit it keeps the
// first quarter and the last three quarters — the end of a build or test
// run is where its failure is — and the result marks the cut between
// them. Once past the limit, everything goes to a file too (when open
// gives one), whose path the mark names, so a tool can read the middle.
// Everything written is passed on to live, when set, as it arrives.
type cutOutput struct {
	mu    sync.Mutex
	limit int
	live  func([]byte)
	// open creates the file for the whole output (nil: none is kept).
	open func() (*os.File, error)

	buf        []byte // everything, until the limit is passed; then the head
	tail       []byte // past the limit: the latest output, at least tailSize bytes
	total      int64  // bytes written
	newlines   int64  // newlines written
	headLines  int64  // newlines in the head, counted once the limit is passed
	cut        bool   // the limit was passed
	file       *os.File
	path       string
	fileBytes  int64
	fileFailed bool // the file could not be made or written, or is full
}

func (w *cutOutput) headSize() int { return w.limit / 4 }
func (w *cutOutput) tailSize() int { return w.limit - w.headSize() }

func (w *cutOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.live != nil {
		w.live(p)
	}
	w.total += int64(len(p))
	w.newlines += int64(bytes.Count(p, []byte{'\n'}))
	if !w.cut {
		w.buf = append(w.buf, p...)
		if w.limit <= 0 || len(w.buf) <= w.limit {
			return len(p), nil
		}
		w.split()
		return len(p), nil
	}
	w.keep(p)
	w.tail = append(w.tail, p...)
	if len(w.tail) > 2*w.tailSize() {
		w.tail = append(w.tail[:0], w.tail[len(w.tail)-w.tailSize():]...)
	}
	return len(p), nil
}

// split is the moment the output passes the limit: what came so far goes
// to the file, the head is kept, and the rest starts the tail.
func (w *cutOutput) split() {
	w.cut = true
	if w.open != nil {
		f, err := w.open()
		if err != nil {
			w.fileFailed = true
		} else {
			w.file, w.path = f, f.Name()
		}
	}
	w.keep(w.buf)
	head := w.headSize()
	w.tail = append([]byte(nil), w.buf[max(head, len(w.buf)-w.tailSize()):]...)
	w.buf = w.buf[:head:head]
	w.headLines = int64(bytes.Count(w.buf, []byte{'\n'}))
}

// keep appends p to the file of the whole output, up to fullOutputMax.
func (w *cutOutput) keep(p []byte) {
	if w.file == nil || w.fileFailed {
		return
	}
	if room := fullOutputMax - w.fileBytes; int64(len(p)) > room {
		p = p[:room]
		w.fileFailed = true
	}
	n, err := w.file.Write(p)
	w.fileBytes += int64(n)
	if err != nil {
		w.fileFailed = true
	}
}

// Close closes the file of the whole output, if one was made.
func (w *cutOutput) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.file == nil {
		return nil
	}
	err := w.file.Close()
	w.file = nil
	return err
}

// truncated reports that the model's text leaves part of the output out.
func (w *cutOutput) truncated() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.cut
}

// fullPath is the file holding the whole output, "" when there is none.
func (w *cutOutput) fullPath() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.path
}

// String is what the model is given, as valid UTF-8: the output, or its
// head and tail cut at line ends (at a character inside a longer line),
// with a line between them saying what was left out and where it is.
func (w *cutOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.cut {
		return textcut.Valid(string(w.buf))
	}
	head := w.buf
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1]
	} else {
		head = trimPartialRune(head)
	}
	tail := w.tail[max(len(w.tail)-w.tailSize(), 0):]
	if i := bytes.IndexByte(tail, '\n'); i >= 0 && i < len(tail)-1 {
		tail = tail[i+1:]
	} else {
		tail = trimLeadingPartialRune(tail)
	}
	cutBytes := w.total - int64(len(head)) - int64(len(tail))
	cutLines := w.newlines - int64(bytes.Count(head, []byte{'\n'})) - int64(bytes.Count(tail, []byte{'\n'}))
	mark := fmt.Sprintf("…[%d bytes / %d lines cut", cutBytes, cutLines)
	switch {
	case w.path != "" && !w.fileFailed:
		mark += fmt.Sprintf("; the whole output (%d lines) is in %s — read parts of it with grep, head, tail or sed -n", w.newlines, w.path)
	case w.path != "":
		mark += fmt.Sprintf("; the first %d bytes are in %s", w.fileBytes, w.path)
	}
	mark += "]…"
	s := textcut.Valid(string(head))
	if s != "" && s[len(s)-1] != '\n' {
		s += "\n"
	}
	return s + mark + "\n" + textcut.Valid(string(tail))
}

// trimPartialRune drops a UTF-8 sequence cut short at the end of b.
func trimPartialRune(b []byte) []byte {
	for i := 1; i < utf8.UTFMax && i <= len(b); i++ {
		if utf8.RuneStart(b[len(b)-i]) {
			if !utf8.FullRune(b[len(b)-i:]) {
				return b[:len(b)-i]
			}
			return b
		}
	}
	return b
}

// trimLeadingPartialRune drops the continuation bytes of a character cut
// at the start of b.
func trimLeadingPartialRune(b []byte) []byte {
	for i := 0; i < utf8.UTFMax && i < len(b); i++ {
		if utf8.RuneStart(b[i]) {
			return b[i:]
		}
	}
	return b
}
