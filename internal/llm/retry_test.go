package llm

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/chat"
)

// scripted is a fake Provider: attempt n runs script[min(n, len-1)].
type scripted struct {
	script   []func(emit Emit) error
	attempts int
}

func (s *scripted) Name() string { return "fake" }

func (s *scripted) Stream(ctx context.Context, req Request, emit Emit) error {
	f := s.script[min(s.attempts, len(s.script)-1)]
	s.attempts++
	return f(emit)
}

func text(s string) chat.MessageDelta { return chat.MessageDelta{Kind: chat.DeltaText, Text: s} }

var doneDelta = chat.MessageDelta{Kind: chat.DeltaDone, StopReason: "stop"}

// emits returns a script step emitting ds (bare, as providers emit
// them) then returning err.
func emits(err error, ds ...chat.MessageDelta) func(Emit) error {
	return func(emit Emit) error {
		for _, d := range ds {
			emit(d)
		}
		return err
	}
}

var errCut = &Error{Provider: "fake", Message: "cut", Retryable: true, Err: ErrStreamCut}

// retryWith wraps p with a policy whose sleeps are recorded, not slept.
func retryWith(p Provider, max int, slept *[]time.Duration) Provider {
	r := WithRetry(p, RetryPolicy{MaxRetries: max}).(*retrying)
	r.pol.sleep = func(ctx context.Context, d time.Duration) error {
		*slept = append(*slept, d)
		return ctx.Err()
	}
	return r
}

var testReq = Request{RunID: "run", ModelCallIndex: 2}

func run(t *testing.T, p Provider) ([]chat.MessageDelta, error) {
	t.Helper()
	var got []chat.MessageDelta
	err := p.Stream(context.Background(), testReq, func(d chat.MessageDelta) { got = append(got, d) })
	for i, d := range got {
		if d.Seq != i+1 || d.RunID != "run" || d.ModelCallIndex != 2 {
			t.Fatalf("delta %d = %+v: consumers must see Seq 1, 2, 3… with the request's ids", i, d)
		}
	}
	return got, err
}

func describe(ds []chat.MessageDelta) []string {
	out := make([]string, len(ds))
	for i, d := range ds {
		out[i] = d.Kind.String() + ":" + d.Text
	}
	return out
}

func TestRetryHonoursRetryAfter(t *testing.T) {
	t.Parallel()
	rate := &Error{Provider: "fake", Status: 429, Message: "slow down", Retryable: true, RetryAfter: 2 * time.Second}
	p := &scripted{script: []func(Emit) error{emits(rate), emits(nil, text("hi"), doneDelta)}}
	var slept []time.Duration
	got, err := run(t, retryWith(p, 3, &slept))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(slept, []time.Duration{2 * time.Second}) || p.attempts != 2 {
		t.Fatalf("slept %v over %d attempts", slept, p.attempts)
	}
	if d := describe(got); !reflect.DeepEqual(d, []string{"text:hi", "done:"}) {
		t.Fatalf("got %v", d)
	}
}

func TestRetryDedupesIdenticalReplay(t *testing.T) {
	t.Parallel()
	p := &scripted{script: []func(Emit) error{
		emits(errCut, text("a"), text("b")),
		emits(nil, text("a"), text("b"), text("c"), doneDelta),
	}}
	var slept []time.Duration
	got, err := run(t, retryWith(p, 3, &slept))
	if err != nil {
		t.Fatal(err)
	}
	if d := describe(got); !reflect.DeepEqual(d, []string{"text:a", "text:b", "text:c", "done:"}) {
		t.Fatalf("consumer saw %v", d)
	}
}

func TestRetryDivergentReplayResets(t *testing.T) {
	t.Parallel()
	p := &scripted{script: []func(Emit) error{
		emits(errCut, text("a"), text("b")),
		emits(nil, text("a"), text("x"), doneDelta),
	}}
	var slept []time.Duration
	got, err := run(t, retryWith(p, 3, &slept))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"text:a", "text:b", "reset:", "text:a", "text:x", "done:"}
	if d := describe(got); !reflect.DeepEqual(d, want) {
		t.Fatalf("consumer saw %v, want %v", d, want)
	}
	var a Accumulator
	for _, d := range got {
		a.Add(d)
	}
	if a.Message().Content != "ax" || !a.Done() {
		t.Fatalf("accumulated %q", a.Message().Content)
	}
}

func TestRetryNonRetryableReturnsAtOnce(t *testing.T) {
	t.Parallel()
	auth := &Error{Provider: "fake", Status: 401, Message: "bad key"}
	p := &scripted{script: []func(Emit) error{emits(auth)}}
	var slept []time.Duration
	_, err := run(t, retryWith(p, 5, &slept))
	if !errors.Is(err, auth) || p.attempts != 1 || len(slept) != 0 {
		t.Fatalf("err %v after %d attempts, slept %v", err, p.attempts, slept)
	}
}

func TestRetryMaxRetries(t *testing.T) {
	t.Parallel()
	p := &scripted{script: []func(Emit) error{emits(errCut)}}
	var slept []time.Duration
	_, err := run(t, retryWith(p, 3, &slept))
	if !errors.Is(err, ErrStreamCut) || p.attempts != 4 || len(slept) != 3 {
		t.Fatalf("err %v after %d attempts, %d sleeps", err, p.attempts, len(slept))
	}
	p = &scripted{script: []func(Emit) error{emits(errCut)}}
	slept = nil
	if _, err := run(t, retryWith(p, 0, &slept)); err == nil || p.attempts != 1 {
		t.Fatalf("MaxRetries 0: %d attempts", p.attempts)
	}
}

func TestRetryCancelDuringBackoff(t *testing.T) {
	t.Parallel()
	p := &scripted{script: []func(Emit) error{emits(errCut)}}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pr := WithRetry(p, RetryPolicy{MaxRetries: 5, BaseDelay: time.Hour, MaxDelay: time.Hour})
	time.AfterFunc(20*time.Millisecond, cancel)
	start := time.Now()
	err := pr.Stream(ctx, testReq, func(chat.MessageDelta) {})
	if !errors.Is(err, context.Canceled) || time.Since(start) > 5*time.Second {
		t.Fatalf("err = %v after %v", err, time.Since(start))
	}
	if p.attempts != 1 {
		t.Fatalf("%d attempts", p.attempts)
	}
}

func TestRetryCancelDuringStream(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	p := &scripted{script: []func(Emit) error{func(Emit) error {
		cancel()
		return errCut // a provider that noticed the cut but not why
	}}}
	err := WithRetry(p, RetryPolicy{MaxRetries: 5}).Stream(ctx, testReq, func(chat.MessageDelta) {})
	if !errors.Is(err, context.Canceled) || p.attempts != 1 {
		t.Fatalf("err = %v after %d attempts", err, p.attempts)
	}
}

func TestBackoff(t *testing.T) {
	t.Parallel()
	pol := RetryPolicy{BaseDelay: 100 * time.Millisecond, MaxDelay: time.Second}
	for attempt := range 10 {
		d := backoff(pol, attempt, errCut)
		base := min(pol.BaseDelay<<attempt, pol.MaxDelay)
		if d < base/2 || d > base*3/2 {
			t.Fatalf("attempt %d: %v outside jitter of %v", attempt, d, base)
		}
	}
	ra := &Error{Retryable: true, RetryAfter: time.Hour}
	if d := backoff(pol, 0, ra); d != time.Second {
		t.Fatalf("Retry-After not capped by MaxDelay: %v", d)
	}
}

func TestRetryOnRetryNotified(t *testing.T) {
	t.Parallel()
	p := &scripted{script: []func(Emit) error{emits(errCut), emits(nil, doneDelta)}}
	var calls []int
	r := WithRetry(p, RetryPolicy{MaxRetries: 2, OnRetry: func(n int, _ time.Duration, err error) {
		if !errors.Is(err, ErrStreamCut) {
			t.Errorf("OnRetry err = %v", err)
		}
		calls = append(calls, n)
	}}).(*retrying)
	r.pol.sleep = func(context.Context, time.Duration) error { return nil }
	if _, err := run(t, r); err != nil || !reflect.DeepEqual(calls, []int{1}) {
		t.Fatalf("err %v, OnRetry calls %v", err, calls)
	}
}

func TestRetryAfterAHugeStreamResetsInsteadOfComparing(t *testing.T) {
	big := strings.Repeat("x", maxReplay/4)
	five := []chat.MessageDelta{text(big), text(big), text(big), text(big), text(big)}
	p := &scripted{script: []func(Emit) error{
		emits(errCut, five...),
		emits(nil, append(five, doneDelta)...),
	}}
	var acc Accumulator
	resets := 0
	var slept []time.Duration
	err := retryWith(p, 1, &slept).Stream(context.Background(), Request{}, func(d chat.MessageDelta) {
		if d.Kind == chat.DeltaReset {
			resets++
		}
		acc.Add(d)
	})
	if err != nil || resets != 1 || acc.Text() != strings.Repeat(big, 5) {
		t.Fatalf("err %v, %d resets, %d bytes", err, resets, len(acc.Text()))
	}
}
