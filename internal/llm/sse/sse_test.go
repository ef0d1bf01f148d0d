package sse

import (
	"bytes"
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"
)

type ev struct{ name, data string }

func readAll(t testing.TB, r io.Reader) ([]ev, error) {
	t.Helper()
	sr := NewReader(r)
	var out []ev
	for {
		e, err := sr.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev{e.Name, string(e.Data)})
	}
}

func TestReader(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []ev
	}{
		{"single", "data: hello\n\n", []ev{{"", "hello"}}},
		{"named", "event: ping\ndata: {}\n\n", []ev{{"ping", "{}"}}},
		{"multiline data", "data: a\ndata: b\ndata:c\n\n", []ev{{"", "a\nb\nc"}}},
		{"crlf", "event: x\r\ndata: 1\r\n\r\ndata: 2\r\n\r\n", []ev{{"x", "1"}, {"", "2"}}},
		{"lone cr", "data: 1\r\rdata: 2\r\r", []ev{{"", "1"}, {"", "2"}}},
		{"comments and ids", ": keep-alive\nid: 7\nretry: 100\ndata: x\n\n: bye\n\n", []ev{{"", "x"}}},
		{"only one space stripped", "data:  two\n\n", []ev{{"", " two"}}},
		{"no colon field", "data\n\n", []ev{{"", ""}}},
		{"empty data line", "data:\ndata:\n\n", []ev{{"", "\n"}}},
		{"event without data dropped", "event: a\n\ndata: b\n\n", []ev{{"", "b"}}},
		{"name does not leak", "event: a\ndata: 1\n\ndata: 2\n\n", []ev{{"a", "1"}, {"", "2"}}},
		{"unknown field", "foo: bar\ndata: x\n\n", []ev{{"", "x"}}},
		{"eof after complete line dispatches", "data: [DONE]\n", []ev{{"", "[DONE]"}}},
		{"eof inside a line drops the event", "data: 1\n\ndata: {\"a\":", []ev{{"", "1"}}},
		{"eof inside a multi-line event drops it", "data: a\ndata: b", nil},
		{"bom", "\xEF\xBB\xBFdata: x\n\n", []ev{{"", "x"}}},
		{"blank lines only", "\n\n\r\n", nil},
		{"empty", "", nil},
		{"openai done", "data: {\"a\":1}\n\ndata: [DONE]\n\n", []ev{{"", "{\"a\":1}"}, {"", "[DONE]"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			for _, r := range []io.Reader{strings.NewReader(tt.in), iotest.OneByteReader(strings.NewReader(tt.in))} {
				got, err := readAll(t, r)
				if err != nil {
					t.Fatalf("err = %v", err)
				}
				if !equal(got, tt.want) {
					t.Fatalf("got %q, want %q", got, tt.want)
				}
			}
		})
	}
}

func equal(a, b []ev) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestHugeLine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", 5<<20)
	in := "data: " + big + "\r\n\r\ndata: small\n\n"
	got, err := readAll(t, strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].data != big || got[1].data != "small" {
		t.Fatalf("got %d events", len(got))
	}
}

func TestTooLarge(t *testing.T) {
	t.Parallel()
	in := io.MultiReader(strings.NewReader("data: "), io.LimitReader(neverEnding('x'), MaxEventSize+10))
	_, err := readAll(t, in)
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
}

type neverEnding byte

func (b neverEnding) Read(p []byte) (int, error) {
	for i := range p {
		p[i] = byte(b)
	}
	return len(p), nil
}

func TestReadErrorIsSticky(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := NewReader(io.MultiReader(strings.NewReader("data: 1\n\ndata: 2\n"), iotest.ErrReader(boom)))
	if e, err := r.Next(); err != nil || string(e.Data) != "1" {
		t.Fatalf("first = %q, %v", e.Data, err)
	}
	for range 2 {
		if _, err := r.Next(); !errors.Is(err, boom) {
			t.Fatalf("err = %v, want boom", err)
		}
	}
}

func FuzzReader(f *testing.F) {
	for _, s := range []string{
		"data: hello\n\n",
		"event: a\r\ndata: 1\r\ndata: 2\r\n\r\n",
		"data: 1\r\rdata: 2\r",
		": c\nid: 1\nretry: x\n\ndata\n",
		"\xEF\xBB\xBFdata:x",
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"\r\n\r\r\n\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		a, errA := readAll(t, bytes.NewReader(in))
		b, errB := readAll(t, iotest.OneByteReader(bytes.NewReader(in)))
		if (errA == nil) != (errB == nil) || !equal(a, b) {
			t.Fatalf("chunking changed the result: %q/%v vs %q/%v", a, errA, b, errB)
		}
	})
}

func BenchmarkReader(b *testing.B) {
	var buf bytes.Buffer
	for range 1000 {
		buf.WriteString("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hello world\"}}]}\n\n")
	}
	in := buf.Bytes()
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		r := NewReader(bytes.NewReader(in))
		for {
			if _, err := r.Next(); err != nil {
				break
			}
		}
	}
}
