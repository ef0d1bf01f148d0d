//go:build !linux

package sandbox

import (
	"errors"
	"runtime"
)

var errNotLinux = errors.New("no namespaces or Landlock on " + runtime.GOOS + " (Linux-only)")

func probeNamespaces(int) error { return errNotLinux }
