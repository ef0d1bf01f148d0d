package undo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// A tool that has just read the file hands undo what it read: a file still
// as read is recorded from it, not read again; one written, replaced,
// resized or turned into a link since is recorded as the disk holds it.
// The read given here is a stand-in of the file's size ("READ"), so the
// entry shows which of the two was recorded.
func TestCaptureFromTheToolsRead(t *testing.T) {
	t.Parallel()
	later, earlier := time.Now().Add(time.Hour), time.Now().Add(-time.Hour)
	cases := []struct {
		name string
		read string
		// change happens between the tool's read and the capture.
		change func(t *testing.T, abs string)
		noRead bool
		// fresh: the file was last written just now (every other case's
		// file is an hour old, past the racy window).
		fresh bool
		want  string
	}{
		{name: "still as read", read: "READ", want: "READ"},
		{name: "no read given", read: "READ", noRead: true, want: "disk"},
		{name: "written since", read: "READ", want: "DISK", change: func(t *testing.T, abs string) {
			must(t, os.WriteFile(abs, []byte("DISK"), 0o644))
			must(t, os.Chtimes(abs, later, later)) // a coarse clock cannot hide it
		}},
		{name: "replaced since, same size and time", read: "READ", want: "DISK", change: func(t *testing.T, abs string) {
			fi, err := os.Stat(abs)
			must(t, err)
			tmp := abs + ".new"
			must(t, os.WriteFile(tmp, []byte("DISK"), 0o644))
			must(t, os.Chtimes(tmp, fi.ModTime(), fi.ModTime()))
			must(t, os.Rename(tmp, abs))
		}},
		{name: "read of another size", read: "READ MORE", want: "disk"},
		{name: "rewritten in place within the clock's tick", read: "READ", fresh: true, want: "DISK", change: func(t *testing.T, abs string) {
			fi, err := os.Stat(abs)
			must(t, err)
			must(t, os.WriteFile(abs, []byte("DISK"), 0o644))
			must(t, os.Chtimes(abs, fi.ModTime(), fi.ModTime())) // same size, same mtime: only its age tells
		}},
		{name: "a link now", read: "READ", want: "elsewhere", change: func(t *testing.T, abs string) {
			must(t, os.Remove(abs))
			must(t, os.Symlink("elsewhere", abs))
		}},
	}
	for i, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			ws := t.TempDir()
			abs := filepath.Join(ws, "f.txt")
			must(t, os.WriteFile(abs, []byte("disk"), 0o644))
			if !tc.fresh {
				must(t, os.Chtimes(abs, earlier, earlier))
			}
			var fi fs.FileInfo
			if !tc.noRead {
				var err error
				fi, err = os.Stat(abs)
				must(t, err)
			}
			if tc.change != nil {
				tc.change(t, abs)
			}
			st, id := openStore(t, ws)
			must(t, NewTurn(st, id, i+1, ws).Capture(abs, tc.read, fi))
			es, err := st.LoadUndo(context.Background(), id, i+1)
			must(t, err)
			if len(es) != 1 || string(es[0].Content) != tc.want || es[0].Skipped != "" {
				t.Fatalf("entries %+v, want one holding %q", es, tc.want)
			}
		})
	}
}
