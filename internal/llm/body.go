package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"slices"
)

// Body is a JSON request body kept as pieces: the request's own fields,
// then an array whose elements are each history message's encoding. It is
// sent piece by piece, never joined: a long history is then neither
// encoded again for every call (see MessageCache) nor copied into one
// buffer the size of the whole body.
type Body struct {
	parts  [][]byte
	n      int64
	fields bool // the object has a field: the next one needs a comma
	items  int  // elements in the open array
}

// NewBody starts a body with the fields of v, a struct encoded as a JSON
// object; more fields follow with Array and the object ends with End.
func NewBody(v any) (*Body, error) {
	b, err := MarshalBody(v)
	if err != nil {
		return nil, err
	}
	if len(b) < 2 || b[0] != '{' || b[len(b)-1] != '}' {
		return nil, errors.New("the request is not a JSON object")
	}
	body := &Body{fields: len(b) > 2}
	body.add(b[:len(b)-1])
	return body, nil
}

// The punctuation, shared by every body (pieces are only read).
var comma, closeArray, closeObject = []byte{','}, []byte{']'}, []byte{'}'}

func (b *Body) add(p []byte) {
	if len(p) > 0 {
		b.parts = append(b.parts, p)
		b.n += int64(len(p))
	}
}

// Array opens the array field name, of about n elements.
func (b *Body) Array(name string, n int) {
	b.parts = slices.Grow(b.parts, 2*n+4) // an element and a comma each
	key, _ := MarshalBody(name)           // a string always encodes
	if b.fields {
		b.add(comma)
	}
	b.add(key)
	b.add([]byte(":["))
	b.fields, b.items = true, 0
}

// Item adds one element of the open array, written as the given pieces in
// order. Pieces may each hold several elements joined by commas; an item
// of no bytes at all adds nothing.
func (b *Body) Item(pieces ...[]byte) {
	empty := true
	for _, p := range pieces {
		empty = empty && len(p) == 0
	}
	if empty {
		return
	}
	if b.items > 0 {
		b.add(comma)
	}
	for _, p := range pieces {
		b.add(p)
	}
	b.items++
}

// EndArray closes the open array.
func (b *Body) EndArray() { b.add(closeArray) }

// End closes the object.
func (b *Body) End() { b.add(closeObject) }

// Len is the body's length in bytes.
func (b *Body) Len() int64 { return b.n }

// Reader reads the body from the start; each call gives a new reader (a
// retry or a redirect sends the body again).
func (b *Body) Reader() io.Reader { return &bodyReader{parts: b.parts} }

// bodyReader reads the pieces in turn. As an io.WriterTo it hands each
// piece to the connection's writer whole.
type bodyReader struct {
	parts  [][]byte
	i, off int // the next byte: parts[i][off]
}

func (r *bodyReader) Read(p []byte) (int, error) {
	n := 0
	for n < len(p) && r.i < len(r.parts) {
		c := copy(p[n:], r.parts[r.i][r.off:])
		n, r.off = n+c, r.off+c
		if r.off == len(r.parts[r.i]) {
			r.i, r.off = r.i+1, 0
		}
	}
	if n == 0 && len(p) > 0 {
		return 0, io.EOF
	}
	return n, nil
}

func (r *bodyReader) WriteTo(w io.Writer) (int64, error) {
	var total int64
	for ; r.i < len(r.parts); r.i, r.off = r.i+1, 0 {
		n, err := w.Write(r.parts[r.i][r.off:])
		total += int64(n)
		if err != nil {
			r.off += n
			return total, err
		}
	}
	return total, nil
}

// Bytes is the body joined, for tests and debugging.
func (b *Body) Bytes() []byte { return bytes.Join(b.parts, nil) }

// Encoder encodes JSON values (without HTML escaping, like MarshalBody)
// one after another into shared chunks of memory: a value costs no
// allocation of its own, which is what a history of thousands of
// messages, encoded once each, needs. Not safe for concurrent use.
type Encoder struct {
	enc *json.Encoder
	a   arena
}

// Encode returns v's encoding. The bytes are shared with nothing else
// written later (appending to them copies).
func (e *Encoder) Encode(v any) ([]byte, error) {
	if e.enc == nil {
		e.enc = json.NewEncoder(&e.a)
		e.enc.SetEscapeHTML(false)
	}
	e.a.begin()
	if err := e.enc.Encode(v); err != nil {
		e.a.drop()
		return nil, err
	}
	b := e.a.end()
	return b[: len(b)-1 : len(b)-1], nil // less the encoder's newline
}

// arenaChunk is the size of an arena's chunks; a larger value gets a
// chunk of its own size.
const arenaChunk = 64 << 10

// arena holds values written one after another in shared chunks.
type arena struct {
	chunk []byte
	start int // where the value being written starts in chunk
}

func (a *arena) begin() { a.start = len(a.chunk) }

func (a *arena) drop() { a.chunk = a.chunk[:a.start] }

// end returns the value written since begin; the arena goes on after it,
// so the caller caps what it hands out.
func (a *arena) end() []byte { return a.chunk[a.start:] }

// Write adds to the value being written, moving it to a new chunk when
// this one is full.
func (a *arena) Write(p []byte) (int, error) {
	if len(p) > cap(a.chunk)-len(a.chunk) {
		sofar := a.chunk[a.start:]
		next := make([]byte, 0, max(arenaChunk, 2*(len(sofar)+len(p))))
		a.chunk, a.start = append(next, sofar...), 0
	}
	a.chunk = append(a.chunk, p...)
	return len(p), nil
}
