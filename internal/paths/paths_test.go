package paths

import (
	"path/filepath"
	"testing"
)

func TestWithin(t *testing.T) {
	dir := filepath.FromSlash("/ws")
	// A name that starts with dots is no way out.
	for _, p := range []string{"/ws", "/ws/a/b", "/ws/..foo"} {
		if !Within(dir, filepath.FromSlash(p)) {
			t.Errorf("%s is not within %s", p, dir)
		}
	}
	// A sibling sharing the prefix, the parent, another tree.
	for _, p := range []string{"/wsx", "/", "/other/ws", "/ws/../x"} {
		if Within(dir, filepath.Clean(filepath.FromSlash(p))) {
			t.Errorf("%s is within %s", p, dir)
		}
	}
	if Within(filepath.FromSlash("/ws/a"), dir) {
		t.Error("a directory is within its child")
	}
	// An empty dir holds nothing, not even the current directory's paths.
	if Within("", filepath.FromSlash("/ws")) || Within("", "ws") {
		t.Error("an empty dir holds a path")
	}
}
