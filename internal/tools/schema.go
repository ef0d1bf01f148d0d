package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"strconv"
	"strings"
)

// schema is the part of JSON Schema the argument check understands: type
// (one or a list), properties, required, enum, items, additionalProperties
// false. Other keywords are ignored.
type schema struct {
	Type                 json.RawMessage    `json:"type"`
	Properties           map[string]*schema `json:"properties"`
	Required             []string           `json:"required"`
	Enum                 []json.RawMessage  `json:"enum"`
	Items                *schema            `json:"items"`
	AdditionalProperties json.RawMessage    `json:"additionalProperties"`
}

// argError is an argument problem the model can fix.
type argError struct{ msg string }

func (e *argError) Error() string { return e.msg }

func argErrorf(format string, a ...any) error { return &argError{fmt.Sprintf(format, a...)} }

// types returns the allowed type names; none means any type.
func (s *schema) types() []string {
	var one string
	if json.Unmarshal(s.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(s.Type, &many)
	return many
}

// check validates v (decoded with UseNumber) and returns it normalised:
// whole numbers given for integers become integers, and null optional
// properties are dropped.
func (s *schema) check(v any, at string) (any, error) {
	if ts := s.types(); len(ts) > 0 {
		nv, err := checkType(v, ts, at)
		if err != nil {
			return nil, err
		}
		v = nv
	}
	if len(s.Enum) > 0 {
		if err := s.checkEnum(v, at); err != nil {
			return nil, err
		}
	}
	switch x := v.(type) {
	case map[string]any:
		return s.checkObject(x, at)
	case []any:
		if s.Items == nil {
			return x, nil
		}
		for i, e := range x {
			ne, err := s.Items.check(e, fmt.Sprintf("%s[%d]", at, i))
			if err != nil {
				return nil, err
			}
			x[i] = ne
		}
	}
	return v, nil
}

func (s *schema) checkObject(obj map[string]any, at string) (any, error) {
	for _, name := range s.Required {
		if _, ok := obj[name]; !ok {
			return nil, argErrorf("missing required field %q", join(at, name))
		}
	}
	closed := string(bytes.TrimSpace(s.AdditionalProperties)) == "false"
	for _, name := range slices.Sorted(maps.Keys(obj)) {
		val := obj[name]
		ps, known := s.Properties[name]
		if !known {
			if closed {
				return nil, argErrorf("unknown field %q", join(at, name))
			}
			continue
		}
		if val == nil && !slices.Contains(s.Required, name) {
			delete(obj, name)
			continue
		}
		nv, err := ps.check(val, join(at, name))
		if err != nil {
			return nil, err
		}
		obj[name] = nv
	}
	return obj, nil
}

func (s *schema) checkEnum(v any, at string) error {
	got, _ := json.Marshal(v)
	var allowed []string
	for _, e := range s.Enum {
		var ev any
		if err := unmarshalNumbers(e, &ev); err != nil {
			continue
		}
		want, _ := json.Marshal(ev)
		if bytes.Equal(got, want) {
			return nil
		}
		allowed = append(allowed, string(want))
	}
	return argErrorf("field %q must be one of %s; got %s", at, strings.Join(allowed, ", "), got)
}

// checkType accepts v if it has one of the types ts.
func checkType(v any, ts []string, at string) (any, error) {
	var firstErr error
	for _, t := range ts {
		nv, err := matchType(v, t)
		if err == nil {
			return nv, nil
		}
		if firstErr == nil {
			firstErr = err
		}
	}
	if at == "" {
		return nil, argErrorf("arguments must be a JSON %s, got %s", strings.Join(ts, " or "), kindOf(v))
	}
	if firstErr != nil && firstErr.Error() != "" {
		return nil, argErrorf("field %q %v", at, firstErr)
	}
	return nil, argErrorf("field %q must be %s, got %s", at, article(strings.Join(ts, " or ")), kindOf(v))
}

// matchType reports a type mismatch as an empty error, or a specific one.
func matchType(v any, t string) (any, error) {
	ok := false
	switch t {
	case "string":
		_, ok = v.(string)
	case "boolean":
		_, ok = v.(bool)
	case "object":
		_, ok = v.(map[string]any)
	case "array":
		_, ok = v.([]any)
	case "null":
		ok = v == nil
	case "number":
		_, ok = v.(json.Number)
	case "integer":
		if n, isNum := v.(json.Number); isNum {
			return wholeNumber(n)
		}
	default:
		ok = true
	}
	if !ok {
		return nil, &argError{}
	}
	return v, nil
}

func wholeNumber(n json.Number) (any, error) {
	if _, err := strconv.ParseInt(string(n), 10, 64); err == nil {
		return n, nil
	}
	f, err := n.Float64()
	if err != nil || f != math.Trunc(f) || math.Abs(f) > 1<<53 {
		return nil, argErrorf("must be a whole number, got %s", n)
	}
	return json.Number(strconv.FormatInt(int64(f), 10)), nil
}

func kindOf(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return "string"
	case bool:
		return "boolean"
	case json.Number:
		return "number " + string(x)
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func article(t string) string {
	if strings.HasPrefix(t, "a") || strings.HasPrefix(t, "i") || strings.HasPrefix(t, "o") {
		return "an " + t
	}
	return "a " + t
}

func join(at, name string) string {
	if at == "" {
		return name
	}
	return at + "." + name
}

func unmarshalNumbers(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}
