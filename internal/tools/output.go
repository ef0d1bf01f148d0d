package tools

import "context"

// OutputFunc receives a running command's output as the process writes it:
// stream is "stdout" or "stderr"; p is only valid during the call. It is for
// people watching a long command; the model's result is unchanged.
type OutputFunc func(stream string, p []byte)

type outputKey struct{}

// WithOutput returns a context whose tool calls report their output live to f.
func WithOutput(ctx context.Context, f OutputFunc) context.Context {
	return context.WithValue(ctx, outputKey{}, f)
}

// liveOutput is the context's OutputFunc for stream, or nil.
func liveOutput(ctx context.Context, stream string) func([]byte) {
	f, _ := ctx.Value(outputKey{}).(OutputFunc)
	if f == nil {
		return nil
	}
	return func(p []byte) { f(stream, p) }
}

type terminalKey struct{}

// WithTerminal returns a context whose tool calls report to f the terminal
// their command runs in, when a launcher runs it in a front end's own
// terminal (an editor's, under coder acp) instead of capturing its output.
func WithTerminal(ctx context.Context, f func(terminalID string)) context.Context {
	return context.WithValue(ctx, terminalKey{}, f)
}

// ShowTerminal tells the context's call that its command runs in terminal
// id, so front ends show that terminal for it. Launchers call it.
func ShowTerminal(ctx context.Context, id string) {
	if f, _ := ctx.Value(terminalKey{}).(func(string)); f != nil {
		f(id)
	}
}
