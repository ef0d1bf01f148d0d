package llm

import (
	"errors"
	"fmt"
	"time"
)

// Error is a failed model call, classified for the retry layer and worded for
// a person. It never contains an API key: providers build Message from the
// response body, which they scrub (see Redact).
type Error struct {
	Provider string
	// Status is the HTTP status, or 0 when no response arrived.
	Status int
	// Message is a one-line readable reason.
	Message string
	// Retryable: connect errors, 429, 5xx, a stream cut before done.
	Retryable bool
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	// ContextOverflow: the request was too long for the model's context.
	ContextOverflow bool
	// Err is the underlying cause, if any.
	Err error
}

func (e *Error) Error() string {
	var s string
	switch {
	case e.Status != 0:
		s = fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	default:
		s = fmt.Sprintf("%s: %s", e.Provider, e.Message)
	}
	return s
}

func (e *Error) Unwrap() error { return e.Err }

// IsRetryable reports whether err is a transient provider failure.
func IsRetryable(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.Retryable
}

// IsContextOverflow reports whether the provider rejected the request as too long.
func IsContextOverflow(err error) bool {
	var e *Error
	return errors.As(err, &e) && e.ContextOverflow
}

// ErrStreamCut is the cause of an Error for a stream that ended before done.
var ErrStreamCut = errors.New("stream ended before the response was complete")
