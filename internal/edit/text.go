package edit

import (
	"strings"
)

// lineOf is the 1-based line of byte offset off in s.
func lineOf(s string, off int) int {
	return strings.Count(s[:off], "\n") + 1
}
