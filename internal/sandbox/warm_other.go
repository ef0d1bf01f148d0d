//go:build !linux

package sandbox

import (
	"context"
	"io"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// Warm keeps a sandbox set up between commands where coder's own helper
// sets it up (Linux); elsewhere every command starts the usual way.
type Warm struct{}

// runKept: no sandbox is kept here.
func (w *Warm) runKept(context.Context, Profile, Level, helper.Spec, []string, io.Writer, io.Writer) *Process {
	return nil
}

// Close does nothing here.
func (w *Warm) Close() {}
