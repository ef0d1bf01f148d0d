package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/coder-agent/coder/internal/chat"
)

// The JSON snapshot is rewritten whole at every checkpoint. Indenting is the
// costly part (≈18 ms for 5,000 messages, against ≈2 ms to encode compactly),
// so each message is encoded and indented once and kept; a checkpoint then
// encodes the new messages and splices everything into the indented session.
// The output is byte for byte what an indenting json.Encoder would write.

// snapCache holds the indented JSON of one session's messages. Only the
// session checkpointed last is kept, which bounds the memory to one history.
type snapCache struct {
	id    string
	state persistState // which messages msgs encodes, as for the rows
	msgs  [][]byte
}

// messagesKey is how the indenting encoder writes an empty Messages field at
// the top level. A string value cannot contain it: newlines are escaped.
var messagesKey = []byte("\n  \"messages\": []")

// encodeSnapshot returns the indented JSON of s, with a trailing newline.
func (st *Store) encodeSnapshot(s *Session) ([]byte, error) {
	if len(s.Messages) == 0 {
		return encodeIndented(s, "")
	}
	c := st.snap
	if c == nil || c.id != s.ID || needsRewrite(s, c.state, true) {
		c = &snapCache{id: s.ID}
	}
	for i := len(c.msgs); i < len(s.Messages); i++ {
		b, err := encodeIndented(&s.Messages[i], "    ")
		if err != nil {
			return nil, fmt.Errorf("message %d: %w", i, err)
		}
		c.msgs = append(c.msgs, bytes.TrimSuffix(b, []byte("\n")))
	}
	c.state = stateOf(s)
	st.snap = c

	head := *s
	head.Messages = []chat.Message{}
	hb, err := encodeIndented(&head, "")
	if err != nil {
		return nil, err
	}
	at := bytes.Index(hb, messagesKey)
	if at < 0 {
		return nil, fmt.Errorf("encoded session lacks %q", messagesKey)
	}
	at += len(messagesKey) - 1 // just before the closing ]
	size := len(hb) + len(c.msgs)*6
	for _, m := range c.msgs {
		size += len(m)
	}
	out := make([]byte, 0, size)
	out = append(out, hb[:at]...)
	for i, m := range c.msgs {
		out = append(out, "\n    "...)
		out = append(out, m...)
		if i < len(c.msgs)-1 {
			out = append(out, ',')
		}
	}
	out = append(out, "\n  "...)
	return append(out, hb[at:]...), nil
}

// encodeIndented encodes v indented by two spaces per level after prefix,
// leaving <, > and & as they are: code is full of them.
func encodeIndented(v any, prefix string) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent(prefix, "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, fmt.Errorf("encode: %w", err)
	}
	return buf.Bytes(), nil
}

// writeSnapshot writes data to path atomically: a temporary file in the same
// directory is written and renamed over path, so a reader sees the old
// snapshot or the new one, never a torn file.
func writeSnapshot(path string, data []byte) (err error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(f.Name())
		}
	}()
	// No fsync: the snapshot mirrors SQLite, which is the durable record
	// (WAL) that resume reads; the rename keeps readers from a torn file,
	// and fsyncing megabytes at every key point cost more than the turn.
	if _, err = f.Write(data); err != nil {
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), path)
}
