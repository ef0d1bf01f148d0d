package sandbox

import (
	"context"
	"io"
)

// Start starts argv in the sandbox p describes, with stdin empty and its
// output to stdout and stderr, as Start of Command would: in the sandbox w
// keeps set up (Linux, every level), else the usual way. The spec is built
// once for either.
func (w *Warm) Start(ctx context.Context, p Profile, argv []string, stdout, stderr io.Writer) (*Process, error) {
	level, s, err := p.prepare(argv)
	if err != nil {
		return nil, err
	}
	if proc := w.runKept(ctx, p, level, s, argv, stdout, stderr); proc != nil {
		return proc, nil
	}
	cmd, err := helperCommand(ctx, p, level, s, argv)
	if err != nil {
		return nil, err
	}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	return Start(cmd)
}
