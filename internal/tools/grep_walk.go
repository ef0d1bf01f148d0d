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
	bufp := grepBufs.Get().(*[]byte)
	defer func() {
		if cap(*bufp) > 1<<20 { // keep the pool small; big files are rare
			*bufp = make([]byte, 0, 64<<10)
		}
		grepBufs.Put(bufp)
	}()
	fd, err := q.ws.openRead(path)
	if err != nil {
		return nil
	}
	data, big, err := readSmallFile(fd, bufp)
	if big {
		f := os.NewFile(uintptr(fd), path)
		defer f.Close()
		return grepStream(path, f, q)
	}
	closeFD(fd)
	switch {
	case err != nil || bytes.IndexByte(data, 0) >= 0:
		return nil
	case q.literal != "" && !bytes.Contains(data, []byte(q.literal)):
		return nil
	case q.prefilter != nil && !q.prefilter.Match(data):
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

// readSmallFile reads a whole file into *bufp with raw system calls on an
// open descriptor: fstat, one read of size+1 bytes (a short read of a
// regular file is its end). System calls are most of a search's time. big
// reports a file over grepWholeFileMax, left for streaming.
func readSmallFile(fd rawFD, bufp *[]byte) (data []byte, big bool, err error) {
	size, err := fdSize(fd)
	if err != nil {
		return nil, false, err
	}
	if size > grepWholeFileMax {
		return nil, true, nil
	}
	buf := (*bufp)[:0]
	if int(size)+1 > cap(buf) {
		buf = make([]byte, 0, int(size)+512)
	}
	for {
		if len(buf) == cap(buf) { // the file grew while we read it
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := readFD(fd, buf[len(buf):cap(buf)])
		if err != nil {
			*bufp = buf
			return nil, false, err
		}
		short := n < cap(buf)-len(buf)
		buf = buf[:len(buf)+n]
		if n == 0 || short {
			*bufp = buf
			return buf, false, nil
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
