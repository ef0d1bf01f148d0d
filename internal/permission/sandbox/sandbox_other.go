//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

// Supported reports whether commands can be sandboxed here, and why not.
func Supported() (bool, string) {
	return false, "no sandbox on " + runtime.GOOS + " (Landlock is Linux-only)"
}

func restrictAndExec(writable []string, path string, argv []string) error {
	return errors.New("no sandbox on " + runtime.GOOS)
}
