// Package sse reads Server-Sent Events (the text/event-stream format both
// model providers stream in) from an io.Reader.
//
// It follows the WHATWG event-stream parsing rules with these choices:
//   - lines end in "\n", "\r\n" or a lone "\r"; a lone "\r" is only seen once
//     the next "\n" (or EOF) arrives, which no real provider relies on;
//   - "event:" sets Event.Name, "data:" lines are joined with "\n", lines
//     starting with ":" are comments, "id:", "retry:" and unknown fields are
//     ignored; one space after the colon is dropped;
//   - an event is dispatched on a blank line, and only if it had a data line
//     (an event with only "event:" is dropped, as the spec says);
//   - at EOF a pending event whose lines were all complete (newline
//     terminated) is dispatched even without the closing blank line — some
//     compatible servers end that way. A final line cut off without its
//     newline is discarded, and so is the event it belonged to: it is a
//     truncated stream, and the caller, which knows whether the response
//     was complete, reports the cut.
package sse

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxEventSize bounds one line and one event's data. Tool-call arguments
// carrying whole files make multi-megabyte events possible; beyond this the
// stream is treated as broken rather than exhausting memory.
const MaxEventSize = 64 << 20

// ErrTooLarge is returned when a line or an event exceeds MaxEventSize.
var ErrTooLarge = errors.New("sse: event too large")

// Event is one dispatched event. Name is empty for the default "message"
// type. Data aliases the Reader's buffer and is valid only until the next
// call to Next.
type Event struct {
	Name string
	Data []byte
}

// Reader parses events from an underlying reader. It is not safe for
// concurrent use.
type Reader struct {
	br      *bufio.Reader
	phys    []byte // unconsumed rest of the current physical ("\n") line
	physOK  bool   // phys holds a line not yet fully split
	long    []byte // assembles physical lines longer than br's buffer
	data    []byte
	hasData bool
	name    string
	last    string // the previous event name, reused to avoid allocating
	started bool
	cut     bool  // the stream ended inside a line
	err     error // sticky: returned by every later Next
}

// NewReader returns a Reader reading from r.
func NewReader(r io.Reader) *Reader {
	return &Reader{br: bufio.NewReaderSize(r, 64<<10)}
}

// Next returns the next event, io.EOF at the clean end of the stream, or
// the underlying read error.
func (r *Reader) Next() (Event, error) {
	if r.err != nil {
		return Event{}, r.err
	}
	r.data, r.hasData, r.name = r.data[:0], false, ""
	for {
		line, err := r.line()
		if err != nil {
			r.err = err
			if err == io.EOF && r.hasData && !r.cut {
				return r.event(), nil
			}
			return Event{}, err
		}
		if len(line) == 0 {
			if r.hasData {
				return r.event(), nil
			}
			r.name = ""
			continue
		}
		if err := r.field(line); err != nil {
			r.err = err
			return Event{}, err
		}
	}
}

func (r *Reader) event() Event { return Event{Name: r.name, Data: r.data} }

// field applies one non-blank line to the pending event.
func (r *Reader) field(line []byte) error {
	i := bytes.IndexByte(line, ':')
	if i == 0 {
		return nil // comment
	}
	name, val := line, []byte(nil)
	if i > 0 {
		name, val = line[:i], line[i+1:]
		if len(val) > 0 && val[0] == ' ' {
			val = val[1:]
		}
	}
	switch string(name) {
	case "data":
		if len(r.data)+len(val)+1 > MaxEventSize {
			return ErrTooLarge
		}
		if r.hasData {
			r.data = append(r.data, '\n')
		}
		r.data = append(r.data, val...)
		r.hasData = true
	case "event":
		if string(val) != r.last {
			r.last = string(val)
		}
		r.name = r.last
	}
	return nil
}

// line returns the next logical line without its terminator. The slice is
// valid until the next call.
func (r *Reader) line() ([]byte, error) {
	if !r.physOK {
		p, err := r.readPhys()
		if err != nil {
			return nil, err
		}
		r.phys, r.physOK = p, true
	}
	if i := bytes.IndexByte(r.phys, '\r'); i >= 0 {
		l := r.phys[:i]
		r.phys = r.phys[i+1:]
		// "\r" at the very end is the CR of a CRLF (or a CR before EOF).
		r.physOK = len(r.phys) > 0
		return l, nil
	}
	r.physOK = false
	return r.phys, nil
}

// readPhys reads up to and including the next "\n" and returns the line
// without it. At EOF, a trailing fragment is kept only up to its last "\r"
// (complete CR-terminated lines); the rest is an unterminated line, dropped.
func (r *Reader) readPhys() ([]byte, error) {
	r.long = r.long[:0]
	for {
		s, err := r.br.ReadSlice('\n')
		if err == bufio.ErrBufferFull {
			if len(r.long)+len(s) > MaxEventSize {
				return nil, ErrTooLarge
			}
			r.long = append(r.long, s...)
			continue
		}
		if len(r.long) > 0 {
			if len(r.long)+len(s) > MaxEventSize {
				return nil, ErrTooLarge
			}
			r.long = append(r.long, s...)
			s = r.long
		}
		if err != nil {
			return r.tail(s, err)
		}
		return r.bom(s[:len(s)-1]), nil
	}
}

// bom drops a UTF-8 byte order mark at the very start of the stream.
func (r *Reader) bom(s []byte) []byte {
	if !r.started {
		r.started = true
		s = bytes.TrimPrefix(s, []byte("\xEF\xBB\xBF"))
	}
	return s
}

// tail handles the unterminated end of the stream.
func (r *Reader) tail(s []byte, err error) ([]byte, error) {
	i := bytes.LastIndexByte(s, '\r')
	r.cut = r.cut || i < len(s)-1
	if err != io.EOF || i < 0 {
		return nil, err
	}
	// The next readPhys hits EOF again at once: bufio keeps returning it.
	return r.bom(s[:i+1]), nil
}
