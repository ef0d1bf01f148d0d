// Package lockfile gives a piece of live state one owner among processes:
// an exclusive advisory lock on a file, held while the owner keeps it and
// released by the kernel when the owner's process ends, however it ends
// (SIGKILL included), so a crash never leaves state locked.
package lockfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
)

// Lock is a held lock.
type Lock struct {
	f    *os.File
	path string
}

// HeldError says another process holds the lock; PID is 0 when it could
// not be read (the owner had not written it yet).
type HeldError struct {
	Path string
	PID  int
}

func (e *HeldError) Error() string {
	if e.PID > 0 {
		return fmt.Sprintf("%s is held by process %d", e.Path, e.PID)
	}
	return e.Path + " is held by another process"
}

// ErrHeld matches every *HeldError with errors.Is.
var ErrHeld = errors.New("lock held by another process")

func (e *HeldError) Is(target error) bool { return target == ErrHeld }

// TryLock takes the lock at path without waiting, creating the file (and
// its directory) when missing, and writes this process's id into it for
// the one who finds it held. A lock file removed by its last owner
// between our open and our lock is opened again, so two processes never
// both hold "the" lock through two different files.
func TryLock(path string) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, err
	}
	for range 100 {
		f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		held, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if held {
			pid := readPID(f)
			f.Close()
			return nil, &HeldError{Path: path, PID: pid}
		}
		if !samePath(f, path) {
			f.Close() // unlinked by the owner we waited on: take the new one
			continue
		}
		if err := f.Truncate(0); err == nil {
			_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
		}
		return &Lock{f: f, path: path}, nil
	}
	return nil, fmt.Errorf("locking %s: the lock file keeps being replaced", path)
}

// Held reports whether a process holds the lock at path now, without
// taking it or creating anything; a missing file is not held.
func Held(path string) (bool, error) {
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	defer f.Close() // releases the lock if we took it
	return tryLock(f)
}

// Unlock removes the lock file and releases the lock. Removing while
// still holding it is what lets TryLock tell a stale file from the live one.
func (l *Lock) Unlock() {
	if l == nil || l.f == nil {
		return
	}
	_ = os.Remove(l.path)
	_ = l.f.Close() // closing the last descriptor releases the lock
	l.f = nil
}

// Abandon releases the lock and leaves the file, as a process that dies
// holding it does (tests of recovery use it).
func (l *Lock) Abandon() {
	if l != nil && l.f != nil {
		_ = l.f.Close()
		l.f = nil
	}
}

func readPID(f *os.File) int {
	buf := make([]byte, 32)
	n, err := f.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0
	}
	pid, _ := strconv.Atoi(string(bytes.TrimSpace(buf[:n])))
	return pid
}

func samePath(f *os.File, path string) bool {
	a, err1 := f.Stat()
	b, err2 := os.Stat(path)
	return err1 == nil && err2 == nil && os.SameFile(a, b)
}
