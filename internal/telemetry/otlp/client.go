package otlp

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"
)

// client posts export requests to one URL: OTLP/HTTP's request, its
// answers and its retries.
type client struct {
	cfg  Config
	http *http.Client
	what string // what the requests carry ("spans"), for messages

	// firstWait is the backoff before the first retry; it doubles, with
	// jitter, up to maxWait.
	firstWait, maxWait time.Duration

	once sync.Once
	stop chan struct{} // closed when the pipeline shuts down
	mu   sync.Mutex
	end  context.Context // the shutdown's context, once it began
}

func newClient(cfg Config, what string) *client {
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	if cfg.TLS != nil {
		tr.TLSClientConfig = cfg.TLS
	}
	return &client{cfg: cfg, http: &http.Client{Transport: tr}, what: what,
		firstWait: time.Second, maxWait: 30 * time.Second, stop: make(chan struct{})}
}

// drain ends retrying: the process is exiting. An export waiting to
// retry gives up, and every later export makes one try, bounded by ctx
// (the shutdown's deadline) as well as by its own timeout.
func (c *client) drain(ctx context.Context) {
	c.once.Do(func() {
		c.mu.Lock()
		c.end = ctx
		c.mu.Unlock()
		close(c.stop)
	})
}

func (c *client) draining() context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.end
}

// post sends one request body, retrying what the specification says is
// transient (no connection; 429, 502, 503, 504) with exponential backoff
// and jitter, or after the Retry-After the collector asked for, within
// the export's timeout.
func (c *client) post(ctx context.Context, body []byte) error {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	if end := c.draining(); end != nil {
		defer context.AfterFunc(end, cancel)()
	}
	if c.cfg.Gzip {
		body = gzipped(body)
	}
	wait := c.firstWait
	for {
		err := c.send(ctx, body)
		var tr *transient
		if err == nil || !errors.As(err, &tr) {
			return err
		}
		d := tr.after
		if d <= 0 {
			d = wait/2 + rand.N(wait) // jitter: 0.5–1.5 × the backoff
			wait = min(2*wait, c.maxWait)
		}
		if dl, ok := ctx.Deadline(); ok && time.Until(dl) < d {
			return fmt.Errorf("%w; not retried: the next try (in %s) would pass the export's timeout", err, d.Round(time.Millisecond))
		}
		t := time.NewTimer(d)
		select {
		case <-c.stop:
			t.Stop()
			return err
		case <-ctx.Done():
			t.Stop()
			return err
		case <-t.C:
		}
	}
}

// transient is a failure worth another try; after is the wait the
// collector asked for (Retry-After), if any.
type transient struct {
	err   error
	after time.Duration
}

func (t *transient) Error() string { return t.err.Error() }
func (t *transient) Unwrap() error { return t.err }

// maxAnswer bounds what is read of a collector's answer.
const maxAnswer = 64 << 10

func (c *client) send(ctx context.Context, body []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.URL, bytes.NewReader(body))
	if err != nil {
		return fmt.Errorf("export to %s: %w", redacted(c.cfg.URL), err)
	}
	req.Header = c.cfg.Headers.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	if c.cfg.JSON {
		req.Header.Set("Content-Type", ContentJSON)
	} else {
		req.Header.Set("Content-Type", ContentProtobuf)
	}
	if c.cfg.Gzip {
		req.Header.Set("Content-Encoding", "gzip")
	}
	if c.cfg.UserAgent != "" {
		req.Header.Set("User-Agent", c.cfg.UserAgent)
	}
	resp, err := c.http.Do(req)
	if ue := (*url.Error)(nil); errors.As(err, &ue) {
		err = ue.Err // its message repeats the URL, query and all
	}
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("export to %s: %w", redacted(c.cfg.URL), ctx.Err())
		}
		// No answer (refused, reset, unreachable): the specification
		// asks for retries with backoff.
		return &transient{err: fmt.Errorf("export to %s: %w", redacted(c.cfg.URL), err)}
	}
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxAnswer)) // so the connection is reused
	resp.Body.Close()
	ct := resp.Header.Get("Content-Type")
	if resp.StatusCode >= 200 && resp.StatusCode < 300 {
		return partialSuccess(ct, answer, c.what)
	}
	err = fmt.Errorf("export to %s: %s%s", redacted(c.cfg.URL), resp.Status, statusMessage(ct, answer))
	switch resp.StatusCode {
	case http.StatusTooManyRequests, http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout:
		return &transient{err: err, after: retryAfter(resp.Header.Get("Retry-After"))}
	}
	return err
}

// retryAfter reads Retry-After: seconds, or an HTTP date.
func retryAfter(v string) time.Duration {
	if v == "" {
		return 0
	}
	if s, err := strconv.Atoi(strings.TrimSpace(v)); err == nil {
		if s < 0 {
			return 0
		}
		return time.Duration(min(s, 24*3600)) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(time.Until(t), 0)
	}
	return 0
}

func gzipped(body []byte) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	_, _ = zw.Write(body) // a bytes.Buffer does not fail
	_ = zw.Close()
	return b.Bytes()
}
