package repl

import (
	"bytes"
	"io"
	"time"
)

const (
	pasteStart = "\x1b[200~"
	pasteEnd   = "\x1b[201~"
	// burstQuiet is how long a burst of input must pause to have ended.
	burstQuiet = 15 * time.Millisecond
)

// burstReader turns a paste into a terminal without bracketed paste into
// a bracketed one. Such a terminal sends pasted text as if typed, each
// line end as Enter; but typed keys arrive one read at a time, so a read
// holding a line end followed by more text is a paste. From such a read
// until the input pauses, everything is wrapped in the bracketed-paste
// markers the key decoder knows: the lines become one paste in the input
// line, sent with Enter, never line by line. A read holding an escape
// sequence is a terminal's own (keys, replies, a real bracketed paste)
// and passes as it is.
type burstReader struct {
	chunks  chan []byte
	err     error
	open    bool   // a paste was started and not ended
	pending []byte // what the last Read could not hold
	timer   *time.Timer
}

// newBurstReader reads in from a goroutine of its own (it ends when in
// does: the terminal is closed or the process exits).
func newBurstReader(in io.Reader) *burstReader {
	b := &burstReader{chunks: make(chan []byte, 16)}
	go func() {
		for {
			buf := make([]byte, 4096)
			n, err := in.Read(buf)
			if n > 0 {
				b.chunks <- buf[:n]
			}
			if err != nil {
				b.err = err
				close(b.chunks)
				return
			}
		}
	}()
	return b
}

func (b *burstReader) Read(p []byte) (int, error) {
	if len(b.pending) == 0 {
		b.pending = b.next()
		if b.pending == nil {
			return 0, b.errOr()
		}
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

// next is the next piece of input as the decoder is to see it; nil when
// the input has ended.
func (b *burstReader) next() []byte {
	if !b.open {
		chunk, ok := <-b.chunks
		if !ok {
			return nil
		}
		if isBurst(chunk) {
			b.open = true
			return append([]byte(pasteStart), chunk...)
		}
		return chunk
	}
	if b.timer == nil {
		b.timer = time.NewTimer(burstQuiet)
	} else {
		b.timer.Reset(burstQuiet)
	}
	defer b.timer.Stop()
	select {
	case chunk, ok := <-b.chunks:
		switch {
		case !ok:
			b.open = false
			return []byte(pasteEnd)
		case bytes.IndexByte(chunk, 0x1b) >= 0:
			b.open = false
			return append([]byte(pasteEnd), chunk...)
		}
		return chunk
	case <-b.timer.C:
		b.open = false
		return []byte(pasteEnd)
	}
}

func (b *burstReader) errOr() error {
	if b.err != nil {
		return b.err
	}
	return io.EOF
}

// isBurst: one read holds a line end (a carriage return, as terminals
// send Enter and pasted line ends; Ctrl+J is a line feed) with more after
// it, and no escape sequence.
func isBurst(chunk []byte) bool {
	if bytes.IndexByte(chunk, 0x1b) >= 0 {
		return false
	}
	i := bytes.IndexByte(chunk, '\r')
	return i >= 0 && i < len(chunk)-1
}
