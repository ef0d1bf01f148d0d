package tools

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Execute runs a decoded call: its Failure when it has one, else the
// tool's Run. A panic inside the tool becomes a Failure: nothing the model
// sends can crash the program. The error return is Run's, for broken
// infrastructure only.
func Execute(ctx context.Context, c *Call) (res Result, err error) {
	if c.Failure != nil {
		return *c.Failure, nil
	}
	defer func() {
		if p := recover(); p != nil {
			res, err = Failure("tool %s crashed: %v", c.Name, p), nil
		}
	}()
	return c.Tool.Run(ctx, c)
}

// checkArgs parses rawArgs, validates them against t's schema and returns them
// normalised, or the Failure to give the model.
func checkArgs(t Tool, rawArgs string) (json.RawMessage, *Result) {
	fail := func(format string, a ...any) (json.RawMessage, *Result) {
		r := Failure(format, a...)
		return nil, &r
	}
	trimmed := strings.TrimSpace(rawArgs)
	if trimmed == "" || trimmed == "null" {
		trimmed = "{}"
	}
	v, err := parseJSON(trimmed)
	if err != nil {
		return fail("invalid JSON arguments for %s: %v", t.Name(), err)
	}
	var s schema
	if err := json.Unmarshal(t.Schema(), &s); err != nil {
		return fail("tool %s has an invalid schema: %v", t.Name(), err)
	}
	if len(s.Type) == 0 {
		s.Type = json.RawMessage(`"object"`)
	}
	nv, err := s.check(v, "")
	if err != nil {
		return fail("invalid arguments for %s: %v", t.Name(), err)
	}
	out, err := json.Marshal(nv)
	if err != nil {
		return fail("invalid arguments for %s: %v", t.Name(), err)
	}
	return out, nil
}

func parseJSON(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, errors.New("unexpected end of input (truncated JSON?)")
		}
		return nil, err
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, errors.New("unexpected data after the JSON value")
	}
	return v, nil
}
