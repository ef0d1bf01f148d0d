package session

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
)

// primeSnapshot learns the layout of a loaded session's snapshot file, so
// the first checkpoint after a resume appends to it instead of re-encoding
// the whole history (≈30 ms at 5,000 messages). The file's messages are
// found at their top-level braces — string values hold no raw newlines, so
// a line starting "    {" or "    }" only delimits a message — and checked
// against fresh encodings of the first, middle and last message; any doubt
// leaves the cache empty and costs nothing but time. The file is read as a
// stream and only those three messages and the head are kept: reading
// megabytes into memory at once cost a resume as much as the scan.
func (st *Store) primeSnapshot(s *Session) {
	if len(s.Messages) == 0 {
		return
	}
	f, err := os.Open(st.SnapshotPath(s.ID))
	if err != nil {
		return
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return
	}
	lay, ok := scanMessages(bufio.NewReaderSize(f, 64<<10), len(s.Messages))
	if !ok || lay.size != fi.Size() {
		return
	}
	head := make([]byte, lay.headLen)
	if _, err := f.ReadAt(head, 0); err != nil {
		return
	}
	n := len(lay.msgs)
	for _, i := range []int{0, n / 2, n - 1} {
		m := lay.msgs[i]
		got := make([]byte, m.end-m.start)
		if _, err := f.ReadAt(got, m.start); err != nil {
			return
		}
		b, err := encodeIndented(&s.Messages[i], "    ")
		if err != nil || !bytes.Equal(bytes.TrimSuffix(b, []byte("\n")), got) {
			return
		}
	}
	st.snap = &snapCache{id: s.ID, state: stateOf(s), file: snapFile{
		head: head, count: n, end: lay.end, size: fi.Size(), mtime: fi.ModTime()}}
}

// span is where one message's indented JSON lies in a snapshot file: from
// its "{" to just after its "}".
type span struct{ start, end int64 }

// layout is what scanMessages finds in a snapshot file: the length of the
// head (through the "[" of the top-level "messages" array), each element's
// span, the offset where the last one ends, and the file's length.
type layout struct {
	headLen   int64
	msgs      []span
	end, size int64
}

// scanMessages reads a snapshot file to its end and finds the elements of
// its top-level "messages" array; ok is false unless there are some, and
// exactly want. Only the first bytes of each line are looked at, so a line
// of any length (a long message's content) costs no more memory than r's
// buffer.
func scanMessages(r *bufio.Reader, want int) (lay layout, ok bool) {
	const (
		key        = `  "messages": [`
		open, shut = "    {", "    }"
	)
	const (
		inHead = iota
		between
		inMessage
		done
	)
	state, start := inHead, int64(0)
	var off int64
	for {
		// One line: its first bytes (up to r's buffer), its length with
		// the newline, and whether it has one.
		first, err := r.ReadSlice('\n')
		var buf [len(key) + 1]byte
		prefix := buf[:copy(buf[:], first)]
		n := int64(len(first))
		for errors.Is(err, bufio.ErrBufferFull) {
			first, err = r.ReadSlice('\n')
			n += int64(len(first))
		}
		if err != nil && err != io.EOF {
			return layout{}, false
		}
		line := bytes.TrimSuffix(prefix, []byte("\n"))
		switch state {
		case inHead:
			// The key starts a line after the first, and the next line holds
			// the first element.
			if off > 0 && n == int64(len(key))+1 && string(line) == key {
				lay.headLen, state = off+int64(len(key)), between
			}
		case between:
			if !bytes.HasPrefix(line, []byte(open)) {
				state = done
				break
			}
			start, state = off+4, inMessage
		case inMessage:
			if !bytes.HasPrefix(line, []byte(shut)) {
				break
			}
			lay.end = off + int64(len(shut))
			lay.msgs = append(lay.msgs, span{start, lay.end})
			// Another element follows only after "}," and the newline.
			if n == int64(len(shut))+2 && string(line) == shut+"," {
				state = between
			} else {
				state = done
			}
		}
		off += n
		if err == io.EOF {
			break
		}
	}
	lay.size = off
	// An element begun and never closed is a file cut short.
	if lay.headLen == 0 || state == inMessage || len(lay.msgs) == 0 || len(lay.msgs) != want {
		return layout{}, false
	}
	return lay, true
}
