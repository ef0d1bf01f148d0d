package repl

import (
	"bufio"
	"context"
	"errors"
	"io"
	"strings"

	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/repl/render"
)

// RunLines is the REPL on a stdin that is not a terminal: every line is one
// input through the same dispatcher, until EOF. No raw mode and
// no prompt; output is whatever the renderer writes. It returns 0, or 1 when
// an input failed, or 130 when ctx was cancelled.
func RunLines(ctx context.Context, in io.Reader, o Runner, r *render.Renderer) int {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 10<<20)
	code := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" {
			continue
		}
		if l := input.Parse(line); l.Is("exit") || l.Is("quit") {
			return code
		}
		r.BeginInput(line)
		_, err := o.RunInput(ctx, line)
		switch {
		case errors.Is(err, context.Canceled) && ctx.Err() != nil:
			return exitInterrupt
		case err != nil:
			code = 1
		}
	}
	return code
}
