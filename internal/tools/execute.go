package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// Execute runs one call of t with the raw argument text the model produced.
// Empty arguments mean {}. Malformed JSON and arguments that do not fit
// t.Schema() become a Failure naming the problem, and so does a panic inside
// the tool: nothing the model sends can crash the program. The error return
// is Run's, for broken infrastructure only.
func Execute(ctx context.Context, t Tool, rawArgs string) (res Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = Failure("tool %s crashed: %v", t.Name(), p), nil
		}
	}()
	args, fail := checkArgs(t, rawArgs)
	if fail != nil {
		return *fail, nil
	}
	return t.Run(ctx, args)
}

// Unknown is the result of a call to a tool that does not exist.
func Unknown(name string, available []string) Result {
	return Failure("unknown tool %q; available: %s", name, strings.Join(available, ", "))
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
	v, err := decodeArgs(trimmed)
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

func decodeArgs(s string) (any, error) {
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

// decode unmarshals checked arguments into a tool's params struct. After
// checkArgs this only fails on a schema that disagrees with the struct.
func decode(args json.RawMessage, v any) *Result {
	if len(bytes.TrimSpace(args)) == 0 {
		args = json.RawMessage("{}")
	}
	if err := json.Unmarshal(args, v); err != nil {
		r := Failure("invalid arguments: %v", err)
		return &r
	}
	return nil
}
