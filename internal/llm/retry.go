package llm

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// RetryPolicy says how often and how patiently transient failures are retried.
type RetryPolicy struct {
	MaxRetries int
	BaseDelay  time.Duration
	MaxDelay   time.Duration
	// OnRetry, if set, is told before each wait (for a notice to the user).
	OnRetry func(attempt int, wait time.Duration, err error)
	// sleep is replaced in tests.
	sleep func(ctx context.Context, d time.Duration) error
}

// WithRetry wraps p so transient failures are retried with exponential backoff
// and jitter, honouring Retry-After. Every attempt reuses the request's
// ModelCallIndex. What the failed attempt already streamed is not repeated:
// while a new attempt replays exactly the same deltas they are dropped; if it
// diverges, a DeltaReset is emitted first so consumers discard the partial
// message, and the new attempt streams on from there.
//
// This is the one place deltas get their identity (the request's RunID and
// ModelCallIndex, a Seq counting what consumers saw of the call) and the
// one place duplicates are dropped: providers emit their deltas bare, and
// the accumulator takes what it is given.
func WithRetry(p Provider, pol RetryPolicy) Provider {
	if pol.BaseDelay <= 0 {
		pol.BaseDelay = 500 * time.Millisecond
	}
	if pol.MaxDelay <= 0 {
		pol.MaxDelay = 30 * time.Second
	}
	if pol.sleep == nil {
		pol.sleep = sleepCtx
	}
	return &retrying{p: p, pol: pol}
}

type retrying struct {
	p   Provider
	pol RetryPolicy
}

func (r *retrying) Name() string { return r.p.Name() }

// ListModels lists the wrapped provider's models, when it can.
func (r *retrying) ListModels(ctx context.Context) ([]ModelInfo, error) {
	if l, ok := r.p.(ModelLister); ok {
		return l.ListModels(ctx)
	}
	return nil, errors.New(r.p.Name() + " cannot list its models")
}

// maxReplay is how much streamed text is kept to recognise a retry's exact
// replay. Past it nothing more is kept and a retry starts afresh with a
// reset, so a huge answer is not held twice in memory.
const maxReplay = 1 << 20

func (r *retrying) Stream(ctx context.Context, req Request, emit Emit) error {
	var (
		sent      []chat.MessageDelta // what consumers have seen, for replay comparison
		sentBytes int
		tooBig    bool // sent was dropped: a retry cannot be compared
		lastSeq   int
		streamed  bool // consumers have seen something of this call
	)
	for attempt := 0; ; attempt++ {
		i := 0
		diverged, resetFirst := false, tooBig && streamed
		tooBig = false
		err := r.p.Stream(ctx, req, func(d chat.MessageDelta) {
			d.RunID, d.ModelCallIndex = req.RunID, req.ModelCallIndex
			if resetFirst {
				resetFirst, diverged = false, true
				lastSeq++
				emit(chat.MessageDelta{RunID: req.RunID, ModelCallIndex: req.ModelCallIndex, Seq: lastSeq, Kind: chat.DeltaReset})
			}
			if !diverged && i < len(sent) {
				if sameDelta(sent[i], d) {
					i++
					return // an exact replay of what was already streamed
				}
				// Consumers drop the whole partial message on reset, so the
				// prefix this attempt shared with the last one is sent again.
				diverged = true
				lastSeq++
				emit(chat.MessageDelta{RunID: req.RunID, ModelCallIndex: req.ModelCallIndex, Seq: lastSeq, Kind: chat.DeltaReset})
				sent = sent[:i]
				for j := range sent {
					lastSeq++
					sent[j].Seq = lastSeq
					emit(sent[j])
				}
			}
			i++
			lastSeq++
			d.Seq = lastSeq
			if !tooBig {
				sent = append(sent, d)
				if sentBytes += len(d.Text) + len(d.Raw); sentBytes > maxReplay {
					tooBig, sent, sentBytes = true, nil, 0
				}
			}
			streamed = true
			emit(d)
		})
		if err == nil || ctx.Err() != nil || !IsRetryable(err) || attempt >= r.pol.MaxRetries {
			if ctx.Err() != nil && err != nil && !errors.Is(err, ctx.Err()) {
				return ctx.Err()
			}
			return err
		}
		wait := backoff(r.pol, attempt, err)
		if r.pol.OnRetry != nil {
			r.pol.OnRetry(attempt+1, wait, err)
		}
		if serr := r.pol.sleep(ctx, wait); serr != nil {
			return serr
		}
	}
}

// sameDelta compares the content of two deltas, ignoring their identity
// and sequence.
func sameDelta(a, b chat.MessageDelta) bool {
	a.RunID, a.ModelCallIndex, a.Seq = "", 0, 0
	b.RunID, b.ModelCallIndex, b.Seq = "", 0, 0
	return a == b
}

// backoff is the wait before retry number attempt+1: the server's Retry-After
// when given (capped by MaxDelay), else base·2^attempt with ±25% jitter.
func backoff(pol RetryPolicy, attempt int, err error) time.Duration {
	var e *Error
	if errors.As(err, &e) && e.RetryAfter > 0 {
		return min(e.RetryAfter, pol.MaxDelay)
	}
	d := pol.BaseDelay << min(attempt, 16)
	if d > pol.MaxDelay || d <= 0 {
		d = pol.MaxDelay
	}
	jitter := time.Duration(rand.Int64N(int64(d)/2 + 1))
	return d/2 + jitter + d/4
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
