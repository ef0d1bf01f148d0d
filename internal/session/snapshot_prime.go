package session

import (
	"bytes"
	"os"
)

// primeSnapshot fills the snapshot cache of a loaded session from the
// snapshot file already on disk, so the first checkpoint after a resume
// appends instead of re-encoding the whole history (≈30 ms at 5,000
// messages). The file's messages are split at their top-level braces — string
// values hold no raw newlines, so "\n    {" and "\n    }" only delimit
// messages — and checked against fresh encodings of the first, middle and
// last message; any doubt leaves the cache empty and costs nothing but time.
func (st *Store) primeSnapshot(s *Session) {
	if len(s.Messages) == 0 {
		return
	}
	data, err := os.ReadFile(st.SnapshotPath(s.ID))
	if err != nil {
		return
	}
	msgs := splitMessages(data, len(s.Messages))
	if msgs == nil {
		return
	}
	for _, i := range []int{0, len(msgs) / 2, len(msgs) - 1} {
		b, err := encodeIndented(&s.Messages[i], "    ")
		if err != nil || !bytes.Equal(bytes.TrimSuffix(b, []byte("\n")), msgs[i]) {
			return
		}
	}
	st.snap = &snapCache{id: s.ID, state: stateOf(s), msgs: msgs}
}

// splitMessages returns the indented JSON of each element of the top-level
// "messages" array, or nil unless there are exactly want of them.
func splitMessages(data []byte, want int) [][]byte {
	start := bytes.Index(data, []byte("\n  \"messages\": [\n"))
	if start < 0 {
		return nil
	}
	rest := data[start+len("\n  \"messages\": [\n"):]
	var out [][]byte
	for len(rest) > 0 && bytes.HasPrefix(rest, []byte("    {")) {
		end := bytes.Index(rest, []byte("\n    }"))
		if end < 0 {
			return nil
		}
		out = append(out, rest[4:end+len("\n    }")])
		rest = rest[end+len("\n    }"):]
		if !bytes.HasPrefix(rest, []byte(",\n")) {
			break
		}
		rest = rest[2:]
	}
	if len(out) != want {
		return nil
	}
	return out
}
