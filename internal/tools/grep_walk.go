package tools

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"io/fs"
	"os"
	"sync"
)

// grepWholeFileMax is the size up to which the built-in backend reads a file
// at once (and can prefilter it); larger files are streamed line by line.
const grepWholeFileMax = 16 << 20

// grepWithWalker is the built-in backend: a parallel walk under the shared
// ignore rules, each file searched line by line with Go's regexp. Files with
// a NUL byte are binary and skipped, as rg does.
func grepWithWalker(ctx context.Context, q *grepQuery, set *matchSet) error {
	if !q.isDir {
		set.addFile(grepFile(q.root, q))
		return nil
	}
	return walkTree(ctx, q.root, q.rules, 0, func(abs string, d fs.DirEntry) error {
		if d.Type().IsRegular() && q.accepts(abs) {
			if ms := grepFile(abs, q); len(ms) > 0 {
				set.addFile(ms)
			}
		}
		return nil
	})
}

// grepFile returns the matches in one file; none if it is unreadable or binary.
func grepFile(path string, q *grepQuery) []grepMatch {
	f, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() > grepWholeFileMax {
		return grepStream(path, f, q)
	}
	bufp := grepBufs.Get().(*[]byte)
	defer func() {
		if cap(*bufp) > 1<<20 { // keep the pool small; big files are rare
			*bufp = make([]byte, 0, 64<<10)
		}
		grepBufs.Put(bufp)
	}()
	data, err := readInto(f, bufp)
	if err != nil || bytes.IndexByte(data, 0) >= 0 {
		return nil
	}
	if q.literal != "" && !bytes.Contains(data, []byte(q.literal)) {
		return nil
	}
	if q.prefilter != nil && !q.prefilter.Match(data) {
		return nil
	}
	var ms []grepMatch
	for n := 1; len(data) > 0; n++ {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if q.re.Match(line) {
			ms = append(ms, grepMatch{abs: path, line: n, text: matchText(line)})
		}
	}
	return ms
}

// grepBufs are read buffers reused across files: most files are small, and
// growing a fresh buffer per file dominated the built-in search's time.
var grepBufs = sync.Pool{New: func() any { b := make([]byte, 0, 64<<10); return &b }}

// readInto reads all of f into *bufp, growing it to the file's size first.
func readInto(f *os.File, bufp *[]byte) ([]byte, error) {
	buf := (*bufp)[:0]
	if fi, err := f.Stat(); err == nil && int(fi.Size())+1 > cap(buf) {
		buf = make([]byte, 0, int(fi.Size())+512)
	}
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			*bufp = buf
			return buf, nil
		}
		if err != nil {
			*bufp = buf
			return nil, err
		}
	}
}

func grepStream(path string, r io.Reader, q *grepQuery) []grepMatch {
	br := bufio.NewReaderSize(r, 256<<10)
	var ms []grepMatch
	for n := 1; ; n++ {
		line, err := br.ReadBytes('\n')
		if bytes.IndexByte(line, 0) >= 0 {
			return nil
		}
		line = bytes.TrimSuffix(line, []byte("\n"))
		if (len(line) > 0 || err == nil) && q.re.Match(line) {
			ms = append(ms, grepMatch{abs: path, line: n, text: matchText(line)})
		}
		if err != nil {
			return ms
		}
	}
}
