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
