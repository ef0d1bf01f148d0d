package helper

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// TestReadFileReadsItAll: past its first 4 KB buffer, a file of many
// reads, and /proc's, whose size stat does not tell.
func TestReadFileReadsItAll(t *testing.T) {
	big := filepath.Join(t.TempDir(), "big")
	want := bytes.Repeat([]byte("0123456789abcdef\n"), 1000)
	if err := os.WriteFile(big, want, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{big, "/proc/self/mountinfo"} {
		got, err := readFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if path == big && !bytes.Equal(got, want) {
			t.Fatalf("%s: read %d bytes, want %d", path, len(got), len(want))
		}
		if len(got) == 0 {
			t.Fatalf("%s: read nothing", path)
		}
	}
	_, err := readFile(filepath.Join(t.TempDir(), "missing"))
	if !errors.Is(err, syscall.ENOENT) || err.Error() == "" {
		t.Fatalf("a missing file: %v", err)
	}
}

// TestCreateEmptyMakesAnEmptyFile: new, or an existing one emptied, with
// the mode asked (less the umask), as os.WriteFile(path, nil, perm).
func TestCreateEmptyMakesAnEmptyFile(t *testing.T) {
	dir := t.TempDir()
	old := syscall.Umask(0)
	defer syscall.Umask(old)
	for _, name := range []string{"new", "full"} {
		p := filepath.Join(dir, name)
		if name == "full" {
			if err := os.WriteFile(p, []byte("data"), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		if err := createEmpty(p, 0o640); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() != 0 || !st.Mode().IsRegular() || name == "new" && st.Mode().Perm() != 0o640 {
			t.Errorf("%s: size %d, mode %v", name, st.Size(), st.Mode())
		}
	}
	if err := createEmpty(filepath.Join(dir, "no", "such"), 0o600); !errors.Is(err, syscall.ENOENT) {
		t.Errorf("in a missing directory: %v", err)
	}
}
