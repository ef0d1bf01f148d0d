package llm

import (
	"bytes"
	"encoding/json"

	"github.com/coder-agent/coder/internal/chat"
)

// MarshalBody encodes a request body without HTML escaping (code is full of
// < > &), with no trailing newline. Every provider's encoding goes here.
func MarshalBody(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// EncodeError is what a provider returns when it cannot encode a request:
// not retryable, the same request would fail again.
func EncodeError(provider string, err error) error {
	return &Error{Provider: provider, Message: "cannot encode the request: " + err.Error(), Err: err}
}

// Stamper passes a provider's deltas on, stamped with the request's
// identity and a fresh Seq (what the accumulator and the retry layer key
// on).
type Stamper struct {
	emit  Emit
	runID string
	call  int
	seq   int
}

// NewStamper stamps the deltas of req's stream before emit gets them.
func NewStamper(emit Emit, req Request) Stamper {
	return Stamper{emit: emit, runID: req.RunID, call: req.ModelCallIndex}
}

// Send stamps d and emits it.
func (s *Stamper) Send(d chat.MessageDelta) {
	s.seq++
	d.RunID, d.ModelCallIndex, d.Seq = s.runID, s.call, s.seq
	s.emit(d)
}
