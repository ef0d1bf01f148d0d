//go:build !linux

package sandbox

import (
	"context"
	"io"
)

// Warm keeps a sandbox set up between commands where the sandbox is one
// coder sets up (Linux's namespaces); elsewhere every command starts the
// usual way.
type Warm struct{}

// Start reports that no kept sandbox runs argv: the caller starts it.
func (w *Warm) Start(context.Context, Profile, []string, io.Writer, io.Writer) (*Process, bool) {
	return nil, false
}

// Close does nothing here.
func (w *Warm) Close() {}
