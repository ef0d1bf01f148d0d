package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"reflect"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/regfile"
)

// maxConfigFile bounds a configuration file.
const maxConfigFile = 4 << 20

// readFile returns the file's bytes, or nil when it does not exist: a missing
// config file is normal; an unreadable one, or one that is not a regular
// file of a sensible size (a FIFO, /dev/zero), is an error.
func readFile(path string) ([]byte, error) {
	data, err := regfile.Read(path, maxConfigFile)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &FileError{File: path, Problem: fmt.Sprintf("cannot read: %v", strings.TrimPrefix(err.Error(), path+": "))}
	}
	// A UTF-8 byte order mark (Windows editors add one) is not JSON.
	return bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), nil
}

// parseObject decodes data as one JSON object, numbers kept as json.Number so
// the checker can tell 3 from 3.5. An empty file counts as an empty object.
func parseObject(file string, data []byte) (map[string]any, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return map[string]any{}, nil
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, syntaxError(file, data, err)
	}
	if _, err := dec.Token(); err != io.EOF {
		off := dec.InputOffset()
		return nil, &FileError{File: file, Problem: position(data, nextByte(data, off)) +
			": invalid JSON: unexpected data after the top-level object"}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, &FileError{File: file, Problem: "must be a JSON object, got " + describeJSON(v)}
	}
	return m, nil
}

func syntaxError(file string, data []byte, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &FileError{File: file, Problem: position(data, se.Offset) + ": invalid JSON: " + se.Error()}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &FileError{File: file, Problem: position(data, int64(len(data))+1) + ": invalid JSON: unexpected end of file"}
	default:
		return &FileError{File: file, Problem: "invalid JSON: " + err.Error()}
	}
}

// position turns a byte offset (as encoding/json reports it: bytes read when the
// error was found, so the offending byte is the last one) into "line L, column C".
// An offset of len(data)+1 is the position just past the end.
func position(data []byte, off int64) string {
	off = min(max(off, 1), int64(len(data))+1)
	prefix := data[:min(off, int64(len(data)))]
	line := bytes.Count(prefix, []byte("\n")) + 1
	col := off - int64(bytes.LastIndexByte(prefix, '\n')+1)
	return fmt.Sprintf("line %d, column %d", line, col)
}

// nextByte skips whitespace from off and returns the offset just past the next
// byte, matching the convention position expects.
func nextByte(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.ContainsRune(" \t\r\n", rune(data[off])) {
		off++
	}
	return off + 1
}

// checker walks a decoded JSON tree against a Go type, reporting unknown keys
// and values of the wrong kind with their full dotted path. encoding/json alone
// ignores unknown keys and reports type errors without the offending value.
type checker struct {
	file   string
	strict bool // false: unknown keys are skipped (compatibility files)
	root   reflect.Type
	errs   []error
	seen   func(path string) // told every key path the file sets
}

func (c *checker) walk(path string, v any, t reflect.Type) {
	if c.seen != nil && path != "" {
		c.seen(path)
	}
	if v == nil {
		return // null: encoding/json leaves scalars alone and clears maps and lists
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Struct, reflect.Map:
		m, ok := v.(map[string]any)
		if !ok {
			c.typeErr(path, "an object", v)
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			c.walkKey(path, k, m[k], t)
		}
	case reflect.Slice:
		l, ok := v.([]any)
		if !ok {
			c.typeErr(path, "a list", v)
			return
		}
		for i, e := range l {
			c.walk(fmt.Sprintf("%s[%d]", path, i), e, t.Elem())
		}
	default:
		c.checkScalar(path, v, t)
	}
}

func (c *checker) walkKey(path, k string, v any, t reflect.Type) {
	if t.Kind() == reflect.Map {
		c.walk(joinKey(path, k), v, t.Elem())
		return
	}
	fields := jsonFields(t)
	ft, ok := fields[k]
	if !ok {
		if in, isInline := reflect.Zero(t).Interface().(inlineMap); isInline {
			c.walk(joinKey(path, k), v, in.inlineElem())
			return
		}
		if c.strict {
			c.unknown(path, k, t)
		}
		return
	}
	c.walk(joinKey(path, k), v, ft)
}

// inlineMap is a struct whose JSON object holds, beside its fields, the
// entries of a map: a key that is no field is one of them, of this type
// (hooks: "sandbox" beside the event names).
type inlineMap interface{ inlineElem() reflect.Type }

func (c *checker) checkScalar(path string, v any, t reflect.Type) {
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			c.typeErr(path, "a string", v)
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			c.typeErr(path, "true or false", v)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		n, ok := v.(json.Number)
		if !ok {
			c.typeErr(path, "a number", v)
		} else if _, err := n.Int64(); err != nil {
			c.typeErr(path, "a whole number", v)
		}
	case reflect.Float64, reflect.Float32:
		n, ok := v.(json.Number)
		if !ok {
			c.typeErr(path, "a number", v)
		} else if _, err := n.Float64(); err != nil {
			c.typeErr(path, "a number in range", v)
		}
	}
}

func (c *checker) typeErr(path, want string, got any) {
	c.errs = append(c.errs, &FileError{File: c.file, Key: path,
		Problem: fmt.Sprintf("must be %s, got %s", want, describeJSON(got))})
}

// unknown reports an unknown key, suggesting a sibling key within edit distance 2,
// or else a key elsewhere with the same name (a key put in the wrong section).
func (c *checker) unknown(path, k string, t reflect.Type) {
	full := joinKey(path, k)
	problem := fmt.Sprintf("unknown key %q", full)
	if s := suggest(k, slices.Sorted(maps.Keys(jsonFields(t)))); s != "" {
		problem += fmt.Sprintf("; did you mean %q?", joinKey(path, s))
	} else if s := elsewhere(k, c.root); s != "" {
		problem += fmt.Sprintf("; did you mean %q?", s)
	}
	c.errs = append(c.errs, &FileError{File: c.file, Key: full, Problem: problem})
}

// elsewhere finds a known key path anywhere under root whose last segment
// is name; the shallowest wins, as the likelier home of a misplaced key.
func elsewhere(name string, root reflect.Type) string {
	best := ""
	for _, p := range keyPaths("", root) {
		if last := p[strings.LastIndexByte(p, '.')+1:]; squash(last) == squash(name) {
			if best == "" || strings.Count(p, ".") < strings.Count(best, ".") {
				best = p
			}
		}
	}
	return best
}

// keyPaths lists the dotted paths of t's struct fields, not descending into maps or lists.
func keyPaths(prefix string, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return nil
	}
	fields := jsonFields(t)
	var out []string
	for _, name := range slices.Sorted(maps.Keys(fields)) {
		p := joinKey(prefix, name)
		out = append(out, p)
		out = append(out, keyPaths(p, fields[name])...)
	}
	return out
}

// jsonFields maps each JSON key of struct type t to its field type.
func jsonFields(t reflect.Type) map[string]reflect.Type {
	out := map[string]reflect.Type{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f.Type
	}
	return out
}

func joinKey(path, k string) string {
	if path == "" {
		return k
	}
	return path + "." + k
}
