package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// The JSON snapshot mirrors the session after every checkpoint. The file lays
// out what seldom changes first, then the messages, then what changes at
// every save (snapshotView): a checkpoint that only appended messages
// encodes just those and rewrites the file from the end of the last stored
// message, so neither its cost nor the memory it keeps grows with the
// history. Anything else — a rewritten history, a changed head, a file
// someone else touched — encodes the whole session and renames the new file
// into place. The bytes are always exactly what an indenting json.Encoder
// writes for snapshotView.

// snapshotView is a session as its snapshot lays it out.
type snapshotView struct {
	ID         string         `json:"id"`
	Title      string         `json:"title"`
	Created    time.Time      `json:"created"`
	Workspace  string         `json:"workspace,omitempty"`
	Generation int            `json:"generation,omitempty"`
	Messages   []chat.Message `json:"messages"`
	Updated    time.Time      `json:"updated"`
	Model      string         `json:"model"`
	Mode       string         `json:"mode"`
	Usage      chat.Usage     `json:"usage"`
	Todos      []Todo         `json:"todos,omitempty"`
	Subagents  []SubagentRun  `json:"subagents,omitempty"`
}

// view is s as its snapshot lays it out, under the workspace its row has.
func (st *Store) view(s *Session) *snapshotView {
	msgs := s.Messages
	if msgs == nil {
		msgs = []chat.Message{}
	}
	return &snapshotView{ID: s.ID, Title: s.Title, Created: s.Created, Workspace: st.workspaceOf(s),
		Generation: s.Generation, Messages: msgs, Updated: s.Updated, Model: s.Model, Mode: s.Mode,
		Usage: s.Usage, Todos: s.Todos, Subagents: s.Subagents}
}

// snapCache is what the snapshot file of the session checkpointed last
// holds, so the next checkpoint can append to it.
type snapCache struct {
	id    string
	state persistState // the messages the file holds, as for the rows
	file  snapFile
}

// snapFile is the snapshot file as last written: its head (up to the
// messages' "["), how many messages it holds, where the last one ends, and
// its size and modification time, to notice a file someone else changed.
type snapFile struct {
	head  []byte
	count int
	end   int64
	size  int64
	mtime time.Time
}

// messagesKey is how the indenting encoder writes an empty Messages field at
// the top level. A string value cannot contain it: newlines are escaped.
var messagesKey = []byte("\n  \"messages\": []")

// saveSnapshot writes the snapshot of s: the new messages and the tail in
// place when only messages were appended since the last save, else the
// whole file, atomically.
func (st *Store) saveSnapshot(s *Session) error {
	path := st.SnapshotPath(s.ID)
	pre, post, err := st.snapshotParts(s)
	if err != nil {
		return err
	}
	c := st.snap
	if c != nil && c.id == s.ID && c.file.count > 0 && !needsRewrite(s, c.state, true) && bytes.Equal(c.file.head, pre) {
		if ok, err := appendSnapshot(path, c, s.Messages[c.file.count:], post); ok || err != nil {
			if err == nil {
				c.state = stateOf(s)
			}
			return err
		}
	}
	data, end, err := assemble(pre, s.Messages, post)
	if err != nil {
		return err
	}
	if err := writeSnapshot(path, data); err != nil {
		return err
	}
	c = &snapCache{id: s.ID, state: stateOf(s),
		file: snapFile{head: pre, count: len(s.Messages), end: end, size: int64(len(data))}}
	if fi, err := os.Stat(path); err == nil {
		c.file.mtime = fi.ModTime()
	}
	st.snap = c
	return nil
}

// appendSnapshot writes msgs (those after c.file.count) and the tail over
// the old tail. ok is false, with nothing written, when the file is not the
// one last written.
func appendSnapshot(path string, c *snapCache, msgs []chat.Message, post []byte) (ok bool, err error) {
	var buf []byte
	for i := range msgs {
		b, err := encodeIndented(&msgs[i], "    ")
		if err != nil {
			return false, fmt.Errorf("message %d: %w", c.file.count+i, err)
		}
		buf = append(append(buf, ",\n    "...), bytes.TrimSuffix(b, []byte("\n"))...)
	}
	end := c.file.end + int64(len(buf))
	buf = append(append(buf, "\n  "...), post...)
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		return false, nil
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || fi.Size() != c.file.size || !fi.ModTime().Equal(c.file.mtime) {
		return false, nil
	}
	if _, err := f.WriteAt(buf, c.file.end); err != nil {
		return true, err
	}
	size := c.file.end + int64(len(buf))
	if err := f.Truncate(size); err != nil {
		return true, err
	}
	if fi, err = f.Stat(); err != nil {
		return true, err
	}
	c.file.count, c.file.end, c.file.size, c.file.mtime = c.file.count+len(msgs), end, size, fi.ModTime()
	return true, nil
}

// snapshotParts returns the file's head (through the messages' "[") and
// tail (from the "]") for s.
func (st *Store) snapshotParts(s *Session) (pre, post []byte, err error) {
	head := st.view(s)
	head.Messages = []chat.Message{}
	hb, err := encodeIndented(head, "")
	if err != nil {
		return nil, nil, err
	}
	at := bytes.Index(hb, messagesKey)
	if at < 0 {
		return nil, nil, fmt.Errorf("encoded session lacks %q", messagesKey)
	}
	at += len(messagesKey) - 1 // just before the closing ]
	return hb[:at], hb[at:], nil
}

// assemble encodes the whole file, and returns the offset where the last
// message ends.
func assemble(pre []byte, msgs []chat.Message, post []byte) ([]byte, int64, error) {
	var out bytes.Buffer
	out.Write(pre)
	for i := range msgs {
		if i > 0 {
			out.WriteByte(',')
		}
		out.WriteString("\n    ")
		b, err := encodeIndented(&msgs[i], "    ")
		if err != nil {
			return nil, 0, fmt.Errorf("message %d: %w", i, err)
		}
		out.Write(bytes.TrimSuffix(b, []byte("\n")))
	}
	end := int64(out.Len())
	if len(msgs) > 0 {
		out.WriteString("\n  ")
	} else {
		end = 0
	}
	out.Write(post)
	return out.Bytes(), end, nil
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
