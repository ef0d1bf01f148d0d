//go:build !linux

package undo

import (
	"context"
	"io/fs"
)

// Without inotify (macOS has FSEvents, which reports late and in
// batches) every scan walks the workspace (scan.go).

// notifyOff is inotify's switch, which does nothing here.
var notifyOff = true

// trees is never filled here.
type trees struct{}

func (s *Scanner) treeScan(context.Context, *ignoreRules, func(string, fstat) bool) (map[string]fstat, map[string]fs.FileMode, bool, error) {
	return nil, nil, false, nil
}
