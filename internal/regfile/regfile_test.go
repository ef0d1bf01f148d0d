//go:build unix

package regfile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	ok := filepath.Join(dir, "ok.json")
	if err := os.WriteFile(ok, []byte(`{"a":1}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := Read(ok, 100); err != nil || string(b) != `{"a":1}` {
		t.Fatalf("a regular file: %q %v", b, err)
	}
	if _, err := Read(ok, 3); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("over the cap: %v", err)
	}
	if _, err := Read(filepath.Join(dir, "missing"), 100); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing: %v", err)
	}
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	zero := filepath.Join(dir, "zero")
	if err := os.Symlink("/dev/zero", zero); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{fifo: "named pipe", zero: "device", dir: "directory"} {
		done := make(chan error, 1)
		go func() { _, err := Read(name, 1<<20); done <- err }()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("%s: %v, want an error naming a %s", name, err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("%s: Read blocked", name)
		}
	}
}
