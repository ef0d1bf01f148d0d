// Package plural holds the one rule for counting things in what people
// read: "1 step", "2 steps".
package plural

import (
	"strconv"
	"strings"
)

// Count is n with the word for one or for many: "1 line", "0 lines",
// "3 matches".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}

// Of is n with word, given in the singular, made plural by English's
// regular endings where n is not one: "1 line", "3 matches", "4 entries".
// An irregular word goes through Count.
func Of(n int, word string) string {
	if n == 1 {
		return Count(n, word, "")
	}
	switch {
	case strings.HasSuffix(word, "y"):
		word = word[:len(word)-1] + "ie"
	case strings.HasSuffix(word, "ch"), strings.HasSuffix(word, "s"), strings.HasSuffix(word, "x"):
		word += "e"
	}
	return Count(n, "", word+"s")
}
