package tools

import (
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// bufferFiles is an editor's view of the files: open buffers (which may hold
// unsaved changes) over the disk. Writes go to the buffer and are saved.
type bufferFiles struct {
	mu      sync.Mutex
	buffers map[string]string
	writes  []string
	opened  []string
}

func (b *bufferFiles) Open(abs string) (io.ReadCloser, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.opened = append(b.opened, abs)
	if s, ok := b.buffers[abs]; ok {
		return io.NopCloser(strings.NewReader(s)), nil
	}
	return os.Open(abs)
}

func (b *bufferFiles) WriteFile(abs string, data []byte, perm fs.FileMode) error {
	b.mu.Lock()
	b.buffers[abs] = string(data)
	b.writes = append(b.writes, abs)
	b.mu.Unlock()
	return os.WriteFile(abs, data, perm)
}

func TestFileToolsReadAndWriteThroughFiles(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"a.txt": "on disk\n", "b.txt": "b\n"})
	abs := filepath.Join(ws.Root, "a.txt")
	files := &bufferFiles{buffers: map[string]string{abs: "unsaved line\n"}}
	env := Env{Workspace: ws, Files: files, Tracker: NewReadTracker()}
	tool := func(name string) Tool {
		for _, tl := range Builtins(env) {
			if tl.Name() == name {
				return tl
			}
		}
		t.Fatalf("no tool %s", name)
		return nil
	}
	// The model reads the buffer, not the disk.
	if got := mustOK(t, call(t, tool(Read), map[string]any{"path": "a.txt"})); !strings.Contains(got, "unsaved line") {
		t.Fatalf("read gave %q", got)
	}
	// An edit matches against the buffer it read and writes through Files.
	mustOK(t, call(t, tool(Edit), map[string]any{"path": "a.txt", "old_string": "unsaved", "new_string": "edited"}))
	if got := readFile(t, abs); got != "edited line\n" {
		t.Fatalf("after edit the file holds %q", got)
	}
	// write and patch go through it too.
	mustOK(t, call(t, tool(Write), map[string]any{"path": "c.txt", "content": "new\n"}))
	mustOK(t, call(t, tool(Read), map[string]any{"path": "b.txt"}))
	mustOK(t, call(t, tool(Patch), map[string]any{"patch": "*** Begin Patch\n*** Update File: b.txt\n-b\n+B\n*** End Patch"}))
	want := []string{abs, filepath.Join(ws.Root, "c.txt"), filepath.Join(ws.Root, "b.txt")}
	if strings.Join(files.writes, ",") != strings.Join(want, ",") {
		t.Fatalf("writes through Files: %v, want %v", files.writes, want)
	}
}

// leaveToDisk is an editor that serves no path itself.
type leaveToDisk struct{ asked int }

func (l *leaveToDisk) Open(string) (io.ReadCloser, error) { l.asked++; return nil, ErrUseDisk }
func (l *leaveToDisk) WriteFile(string, []byte, fs.FileMode) error {
	l.asked++
	return ErrUseDisk
}

// A path the editor leaves to the disk is read and written there, by the
// tools' own traversal-proof access.
func TestFilesCanLeaveAPathToTheDisk(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"a.txt": "on disk\n"})
	files := &leaveToDisk{}
	tools := map[string]Tool{}
	for _, tl := range Builtins(Env{Workspace: ws, Files: files, Tracker: NewReadTracker()}) {
		tools[tl.Name()] = tl
	}
	if got := mustOK(t, call(t, tools[Read], map[string]any{"path": "a.txt"})); !strings.Contains(got, "on disk") {
		t.Fatalf("read gave %q", got)
	}
	mustOK(t, call(t, tools[Edit], map[string]any{"path": "a.txt", "old_string": "on disk", "new_string": "edited"}))
	mustOK(t, call(t, tools[Patch], map[string]any{"patch": "*** Begin Patch\n*** Add File: b.txt\n+b\n*** End Patch"}))
	if got := readFile(t, filepath.Join(ws.Root, "a.txt")); got != "edited\n" {
		t.Fatalf("a.txt holds %q", got)
	}
	if got := readFile(t, filepath.Join(ws.Root, "b.txt")); got != "b\n" || files.asked < 4 {
		t.Fatalf("b.txt holds %q; the editor was asked %d times", got, files.asked)
	}
}

// TestEditorIsAskedOnlyForTextInside: the tools decide what goes through
// the editor, which follows paths by name: a binary file and an approved
// path outside the workspace stay on the disk, and a new file's missing
// directories are made through the workspace's root before the editor
// writes it.
func TestEditorIsAskedOnlyForTextInside(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	outside := t.TempDir()
	writeFiles(t, ws.Root, map[string]string{"bin.dat": "a\x00b\n", "t.txt": "text\n"})
	writeFiles(t, outside, map[string]string{"o.txt": "outside\n"})
	files := &bufferFiles{buffers: map[string]string{}}
	env := Env{Workspace: ws, Files: files, Tracker: NewReadTracker()}
	var read, write Tool
	for _, tl := range Builtins(env) {
		switch tl.Name() {
		case Read:
			read = tl
		case Write:
			write = tl
		}
	}
	opened := func() []string {
		files.mu.Lock()
		defer files.mu.Unlock()
		return slices.Clone(files.opened)
	}
	call(t, read, map[string]any{"path": "bin.dat"})
	if got := mustOK(t, callApproved(t, read, map[string]any{"path": filepath.Join(outside, "o.txt")})); !strings.Contains(got, "outside") {
		t.Fatalf("approved outside read: %q", got)
	}
	if got := opened(); len(got) != 0 {
		t.Fatalf("the editor was asked for %v", got)
	}
	mustOK(t, call(t, read, map[string]any{"path": "t.txt"}))
	mustOK(t, call(t, write, map[string]any{"path": "new/dir/n.txt", "content": "n\n"}))
	if got := opened(); len(got) != 1 || !strings.HasSuffix(got[0], "t.txt") {
		t.Fatalf("the editor was asked for %v, want t.txt only", got)
	}
	if got := readFile(t, filepath.Join(ws.Root, "new/dir/n.txt")); got != "n\n" || len(files.writes) != 1 {
		t.Fatalf("n.txt holds %q; editor writes %v", got, files.writes)
	}
}
