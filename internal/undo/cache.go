package undo

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"time"
)

// refresh makes the cache hold the content of abs as of st, reading it when
// the cached copy is missing, stale or racy. It returns why the content is
// not cached, or "".
func (s *Scanner) refresh(rel, abs string, st fstat) string {
	s.cacheMu.Lock()
	if c := s.cache[rel]; c != nil {
		if c.st == st && !racy(st, c.readAt) {
			s.cacheMu.Unlock()
			return ""
		}
		s.dropLocked(rel)
	}
	if why := s.fitsLocked(st); why != "" {
		s.cacheMu.Unlock()
		return why
	}
	s.total += st.size // reserved while reading, so parallel reads respect MaxTotal
	s.cacheMu.Unlock()

	data, at, err := readContent(abs, st)

	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	s.total -= st.size
	if err != nil {
		return "cannot read: " + err.Error()
	}
	s.cache[rel] = &cached{st: st, data: data, readAt: at}
	s.total += int64(len(data))
	return ""
}

// fitsLocked says why a file at st cannot be cached, or "". A symbolic
// link's target is tiny and always fits.
func (s *Scanner) fitsLocked(st fstat) string {
	switch {
	case st.mode&fs.ModeSymlink != 0:
		return ""
	case !st.mode.IsRegular():
		return "not a regular file"
	case st.size > s.opts.MaxFileSize:
		return fmt.Sprintf("larger than %d bytes", s.opts.MaxFileSize)
	case s.total+st.size > s.opts.MaxTotal:
		return fmt.Sprintf("past the %d-byte cache limit", s.opts.MaxTotal)
	}
	return ""
}

// prior returns the cached content of rel if it is that of st.
func (s *Scanner) prior(rel string, st fstat) ([]byte, bool) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	c := s.cache[rel]
	if c == nil || c.st != st {
		return nil, false
	}
	return c.data, true
}

// put caches data as the content of rel at st, if it fits.
func (s *Scanner) put(rel string, st fstat, data []byte, at time.Time) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	s.dropLocked(rel)
	if s.fitsLocked(st) == "" {
		s.cache[rel] = &cached{st: st, data: data, readAt: at}
		s.total += int64(len(data))
	}
}

func (s *Scanner) drop(rel string) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	s.dropLocked(rel)
}

func (s *Scanner) dropLocked(rel string) {
	if c := s.cache[rel]; c != nil {
		s.total -= int64(len(c.data))
		delete(s.cache, rel)
	}
}

// evict forgets files that are gone, so the cache holds only live content.
func (s *Scanner) evict(live map[string]fstat) {
	s.cacheMu.Lock()
	defer s.cacheMu.Unlock()
	for rel := range s.cache {
		if _, ok := live[rel]; !ok {
			s.dropLocked(rel)
		}
	}
}

// readContent reads a file (a symbolic link's target) expected at st. It
// fails if the file changed while it was read: the content would not be
// that of st. at is taken before reading, for the racy test.
func readContent(abs string, st fstat) (data []byte, at time.Time, err error) {
	at = time.Now()
	if st.mode&fs.ModeSymlink != 0 {
		var target string
		target, err = os.Readlink(abs)
		data = []byte(target)
	} else {
		data, err = os.ReadFile(abs)
	}
	if err != nil {
		return nil, at, err
	}
	fi, err := os.Lstat(abs)
	if err != nil {
		return nil, at, err
	}
	if statOf(fi) != st {
		return nil, at, errors.New("changed while being read")
	}
	return data, at, nil
}

// racy reports whether a file with stat st, looked at when, could have
// changed since without its stat changing (same timestamp tick).
func racy(st fstat, when time.Time) bool {
	return st.mtime >= when.Add(-racyWindow).UnixNano()
}
