package llm

import (
	"bytes"
	"encoding/json"
	"errors"

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

// emptySchema stands in for a tool's parameters when it declares none.
var emptySchema = json.RawMessage(`{"type":"object","properties":{}}`)

// ToolSchema is t's parameter schema as every API wants one: an empty
// object schema when it declares none or they are not valid JSON.
func ToolSchema(t chat.ToolSpec) json.RawMessage {
	if len(t.Parameters) == 0 || !json.Valid(t.Parameters) {
		return emptySchema
	}
	return t.Parameters
}

// DecodeEvent decodes one streamed event's JSON into v. A field of an
// unexpected type is skipped (see SkipTypeErrors); broken JSON is a fault
// of this response, worth another attempt.
func DecodeEvent(provider string, data []byte, v any) error {
	if err := SkipTypeErrors(json.Unmarshal(data, v)); err != nil {
		return &Error{Provider: provider, Message: "malformed stream event: " + err.Error(), Retryable: true, Err: err}
	}
	return nil
}

// SkipTypeErrors is err, unless all it says is that a field had an
// unexpected type: such a field is left out and the rest is decoded
// (servers add fields, and compatible ones type them differently).
func SkipTypeErrors(err error) error {
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return nil
	}
	return err
}

// EncodeError is what a provider returns when it cannot encode a request:
// not retryable, the same request would fail again.
func EncodeError(provider string, err error) error {
	return &Error{Provider: provider, Message: "cannot encode the request: " + err.Error(), Err: err}
}
