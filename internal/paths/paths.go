// Package paths holds the one lexical rule for whether a path lies in a
// directory, which the sandbox, the shell reader, undo and @path
// attachments all ask.
package paths

import (
	"os"
	"path/filepath"
)

// Within reports whether p is dir or below it. Both are clean and
// absolute; the rule is lexical (resolving symlinks is the caller's). An
// empty dir holds nothing.
func Within(dir, p string) bool {
	if dir == "" {
		return false
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !(len(rel) >= 3 && rel[:2] == ".." && os.IsPathSeparator(rel[2]))
}
