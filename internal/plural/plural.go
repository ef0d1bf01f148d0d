// Package plural holds the one rule for counting things in what people
// read: "1 step", "2 steps".
package plural

import "strconv"

// Count is n with the word for one or for many: "1 line", "0 lines",
// "3 matches".
func Count(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
