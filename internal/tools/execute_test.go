package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
)

const testSchema = `{"type":"object","properties":{
	"path":{"type":"string"},
	"limit":{"type":"integer"},
	"ratio":{"type":"number"},
	"all":{"type":"boolean"},
	"mode":{"type":"string","enum":["fast","slow"]},
	"tags":{"type":"array","items":{"type":"string"}},
	"opts":{"type":"object","properties":{"depth":{"type":"integer"}},"required":["depth"]}},
	"required":["path"]}`

func TestExecuteChecksArguments(t *testing.T) {
	t.Parallel()
	tool := fakeTool{name: "fake", schema: testSchema}
	tests := []struct {
		name    string
		args    string
		want    string // args Run receives
		wantErr string // failure text, when it fails
	}{
		{name: "valid", args: `{"path":"a","limit":3,"all":true}`, want: `{"all":true,"limit":3,"path":"a"}`},
		{name: "whole float as integer", args: `{"path":"a","limit":3.0}`, want: `{"limit":3,"path":"a"}`},
		{name: "null optional dropped", args: `{"path":"a","limit":null}`, want: `{"path":"a"}`},
		{name: "unknown field ignored", args: `{"path":"a","extra":1}`, want: `{"extra":1,"path":"a"}`},
		{name: "malformed", args: `{"path":`, wantErr: "invalid JSON arguments for fake: unexpected end of input"},
		{name: "not JSON", args: `path=a`, wantErr: "invalid JSON arguments for fake: invalid character"},
		{name: "trailing data", args: `{"path":"a"} x`, wantErr: "invalid JSON arguments for fake: unexpected data after"},
		{name: "empty means {}", args: ``, wantErr: `invalid arguments for fake: missing required field "path"`},
		{name: "missing required", args: `{"limit":1}`, wantErr: `missing required field "path"`},
		{name: "not an object", args: `["a"]`, wantErr: "arguments must be a JSON object, got array"},
		{name: "wrong type", args: `{"path":1}`, wantErr: `field "path" must be a string, got number 1`},
		{name: "string for integer", args: `{"path":"a","limit":"5"}`, wantErr: `field "limit" must be an integer, got string`},
		{name: "fraction for integer", args: `{"path":"a","limit":2.5}`, wantErr: `field "limit" must be a whole number, got 2.5`},
		{name: "bool", args: `{"path":"a","all":"yes"}`, wantErr: `field "all" must be a boolean, got string`},
		{name: "number", args: `{"path":"a","ratio":"x"}`, wantErr: `field "ratio" must be a number`},
		{name: "enum", args: `{"path":"a","mode":"medium"}`, wantErr: `field "mode" must be one of "fast", "slow"; got "medium"`},
		{name: "array items", args: `{"path":"a","tags":["x",2]}`, wantErr: `field "tags[1]" must be a string, got number 2`},
		{name: "nested required", args: `{"path":"a","opts":{}}`, wantErr: `missing required field "opts.depth"`},
		{name: "required null", args: `{"path":null}`, wantErr: `field "path" must be a string, got null`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			res := call(t, tool, tt.args)
			if tt.wantErr != "" {
				if msg := failure(t, res); !strings.Contains(msg, tt.wantErr) {
					t.Fatalf("error = %q, want it to contain %q", msg, tt.wantErr)
				}
				return
			}
			if got := mustOK(t, res); got != tt.want {
				t.Fatalf("Run got args %s, want %s", got, tt.want)
			}
		})
	}
}

func TestExecuteEmptyArgsForToolWithoutRequired(t *testing.T) {
	t.Parallel()
	tool := fakeTool{name: "f", schema: `{"type":"object","properties":{}}`}
	for _, args := range []string{"", "  ", "null", "{}"} {
		if got := mustOK(t, call(t, tool, args)); got != "{}" {
			t.Errorf("args %q: Run got %s", args, got)
		}
	}
}

func TestExecuteRecoversPanics(t *testing.T) {
	t.Parallel()
	tool := fakeTool{name: "boom", schema: `{}`, run: func(json.RawMessage) (Result, error) {
		var m map[string]int
		m["x"] = 1 // nil map write
		return Result{}, nil
	}}
	res, err := execRaw(context.Background(), tool, `{}`)
	if err != nil {
		t.Fatal(err)
	}
	if msg := failure(t, res); !strings.Contains(msg, "tool boom crashed") {
		t.Fatalf("error = %q", msg)
	}
}

func TestUnknown(t *testing.T) {
	t.Parallel()
	msg := failure(t, Unknown("x", []string{"read", "bash"}))
	if msg != `unknown tool "x"; available: read, bash` {
		t.Fatalf("got %q", msg)
	}
}

func TestBuiltinsRejectBadArguments(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	tests := []struct{ tool, args, want string }{
		{"read", `{}`, `invalid arguments for read: missing required field "path"`},
		{"read", `{"path":"a","offset":"1"}`, `field "offset" must be an integer`},
		{"grep", `{"pattern":["x"]}`, `field "pattern" must be a string, got array`},
		{"edit", `{"path":"a","old_string":"x"}`, `missing required field "new_string"`},
		{"bash", `{"command":"ls"`, `invalid JSON arguments for bash`},
		{"write", `{"path":"a","content":"x","extra":`, `invalid JSON arguments for write`},
	}
	for _, tt := range tests {
		if msg := failure(t, call(t, builtin(t, ws, tt.tool), tt.args)); !strings.Contains(msg, tt.want) {
			t.Errorf("%s %s: error %q, want %q", tt.tool, tt.args, msg, tt.want)
		}
	}
}
