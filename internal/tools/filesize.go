package tools

import (
	"errors"
	"fmt"
)

// MaxFileBytes is the largest file write, edit and patch change, and the
// largest read hashes for the edit guards. A file is held in memory while
// it is changed — its text before and after, once each — so a larger one
// is refused, from its size, before it is read: a command (sed -i, a
// script) changes it as a stream instead.
const MaxFileBytes = 64 << 20

// tooLargeError is a file, or a change's result, above the limit.
type tooLargeError struct{ size, max int64 }

func (e *tooLargeError) Error() string {
	return fmt.Sprintf("it is %s, more than the %s the file tools change in memory", mib(e.size), mib(e.max))
}

// tooLargeFailure tells the model what to do instead.
func tooLargeFailure(rel string, err error) (Result, bool) {
	var big *tooLargeError
	if !errors.As(err, &big) {
		return Result{}, false
	}
	return Failure("%s not changed: %v; change a file this large with a command (sed -i, awk, a script) through bash, or split it", rel, big), true
}

// mib shows a byte count in MiB, one decimal.
func mib(n int64) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }
