package tools

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const editSource = "package p\n\nfunc a() int { return 1 }\n\nfunc b() int { return 1 }\n\nfunc c() int { return 2 }\n"

func TestEdit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name    string
		args    map[string]any
		want    string // file afterwards
		content string // message to the model
		diff    string
	}{
		{
			name:    "unique",
			args:    map[string]any{"old_string": "return 2", "new_string": "return 3"},
			want:    strings.Replace(editSource, "return 2", "return 3", 1),
			content: "edited p.go (1 replacement, +1 -1)",
			diff:    "--- a/p.go\n+++ b/p.go\n@@ -4,4 +4,4 @@\n \n func b() int { return 1 }\n \n-func c() int { return 2 }\n+func c() int { return 3 }\n",
		},
		{
			name:    "replace all",
			args:    map[string]any{"old_string": "return 1", "new_string": "return 10", "replace_all": true},
			want:    "package p\n\nfunc a() int { return 10 }\n\nfunc b() int { return 10 }\n\nfunc c() int { return 2 }\n",
			content: "edited p.go (2 replacements, +2 -2)",
		},
		{
			name:    "multi-line with context",
			args:    map[string]any{"old_string": "func b() int { return 1 }\n\nfunc c", "new_string": "func c"},
			want:    "package p\n\nfunc a() int { return 1 }\n\nfunc c() int { return 2 }\n",
			content: "edited p.go (1 replacement, +0 -2)",
		},
		{
			name:    "unique with replace_all",
			args:    map[string]any{"old_string": "package p", "new_string": "package q", "replace_all": true},
			want:    strings.Replace(editSource, "package p", "package q", 1),
			content: "edited p.go (1 replacement, +1 -1)",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			ws := newWS(t)
			writeFiles(t, ws.Root, map[string]string{"p.go": editSource})
			readPaths(t, ws, "p.go")
			tt.args["path"] = "p.go"
			res := call(t, builtin(t, ws, "edit"), tt.args)
			if got := mustOK(t, res); got != tt.content {
				t.Errorf("content %q, want %q", got, tt.content)
			}
			if got := readFile(t, filepath.Join(ws.Root, "p.go")); got != tt.want {
				t.Errorf("file:\n%q\nwant\n%q", got, tt.want)
			}
			if tt.diff != "" && res.Diff != tt.diff {
				t.Errorf("diff:\n%s\nwant\n%s", res.Diff, tt.diff)
			}
		})
	}
}

func TestEditFailuresLeaveFileAlone(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	writeFiles(t, ws.Root, map[string]string{"p.go": editSource, "dir/": ""})
	readPaths(t, ws, "p.go")
	edit := builtin(t, ws, "edit")
	tests := []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": "p.go", "old_string": "return 1", "new_string": "return 9"},
			"old_string matches 2 places in p.go (lines 3, 5); include more surrounding lines to make it unique, or set replace_all to change every occurrence"},
		{map[string]any{"path": "p.go", "old_string": "return 4", "new_string": "x"}, "old_string not found in p.go"},
		{map[string]any{"path": "p.go", "old_string": "return 2", "new_string": "return 2"}, "old_string and new_string are identical"},
		{map[string]any{"path": "p.go", "old_string": "", "new_string": "x"}, "old_string is empty but p.go is not"},
		{map[string]any{"path": "nope.go", "old_string": "a", "new_string": "b"}, "no such file or directory: nope.go"},
		{map[string]any{"path": "dir", "old_string": "a", "new_string": "b"}, "dir is a directory"},
	}
	for _, tt := range tests {
		if msg := failure(t, call(t, edit, tt.args)); !strings.HasPrefix(msg, tt.want) {
			t.Errorf("%v:\n got %q\nwant %q", tt.args, msg, tt.want)
		}
	}
	if got := readFile(t, filepath.Join(ws.Root, "p.go")); got != editSource {
		t.Fatalf("file changed: %q", got)
	}
}

func TestEditCreatesFileAndKeepsMode(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	edit := builtin(t, ws, "edit")
	res := call(t, edit, map[string]any{"path": "new/dir/f.txt", "old_string": "", "new_string": "hello\n"})
	if got := mustOK(t, res); got != "created new/dir/f.txt (1 line)" {
		t.Errorf("content %q", got)
	}
	if got := readFile(t, filepath.Join(ws.Root, "new/dir/f.txt")); got != "hello\n" {
		t.Errorf("file %q", got)
	}
	writeFiles(t, ws.Root, map[string]string{"empty.txt": ""})
	mustOK(t, call(t, edit, map[string]any{"path": "empty.txt", "old_string": "", "new_string": "filled"}))
	if got := readFile(t, filepath.Join(ws.Root, "empty.txt")); got != "filled" {
		t.Errorf("empty file: %q", got)
	}

	writeFiles(t, ws.Root, map[string]string{"x.sh": "echo a\n"})
	readPaths(t, ws, "x.sh")
	path := filepath.Join(ws.Root, "x.sh")
	if err := os.Chmod(path, 0o700); err != nil {
		t.Fatal(err)
	}
	mustOK(t, call(t, edit, map[string]any{"path": "x.sh", "old_string": "a", "new_string": "b"}))
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o700 {
		t.Errorf("mode %v", fi.Mode().Perm())
	}
}
