package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// FuzzCheckArgs feeds every built-in tool's argument check the raw text a
// model might send. It never panics; what it accepts is a JSON object that
// passes the check again unchanged (normalising is idempotent) and holds
// every required field; and the approval and summary code that reads the
// accepted arguments before the tool runs never panics either.
func FuzzCheckArgs(f *testing.F) {
	for _, s := range []string{
		``, `null`, `{}`, `[]`, `"x"`, `{"path":"a.txt"}`, `{"path": "a.txt"`, `{"path":null}`,
		`{"command":"ls","timeout_ms":1e3}`, `{"command":"ls","timeout_ms":1.5}`, `{"command":"ls","timeout_ms":"5"}`,
		`{"command":"ls","timeout_ms":9007199254740993}`, `{"command":"ls","timeout_ms":-0}`,
		`{"pattern":"a","context":2,"ignore_case":true}`, `{"path":"a","offset":1,"limit":-1}`,
		`{"path":"a","old_string":"x","new_string":"y","replace_all":true}`,
		`{"patch":"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch"}`,
		`{"path":"a","content":"x"} {"extra":1}`, `{"path":"\u0000"}`, `{"a":{"b":[1,2,{"c":null}]}}`,
		`{"path":"../../etc/passwd"}`, `{"path":"~"}`, `{"pattern":"**","path":"/"}`,
	} {
		for i := range 8 {
			f.Add(uint8(i), s)
		}
	}
	dir := f.TempDir()
	ws, err := NewWorkspace(dir)
	if err != nil {
		f.Fatal(err)
	}
	all := Builtins(Env{Workspace: ws, Tracker: NewReadTracker()})
	f.Fuzz(func(t *testing.T, which uint8, raw string) {
		tool := all[int(which)%len(all)]
		args, fail := checkArgs(tool, raw)
		if fail != nil {
			if fail.OK || !strings.Contains(fail.Content, `"ok":false`) {
				t.Fatalf("a rejection is not a failure result: %+v", fail)
			}
			return
		}
		var obj map[string]any
		if err := json.Unmarshal(args, &obj); err != nil || obj == nil {
			t.Fatalf("accepted arguments are not a JSON object: %s (%v)", args, err)
		}
		var s schema
		if err := json.Unmarshal(tool.Schema(), &s); err != nil {
			t.Fatal(err)
		}
		for _, req := range s.Required {
			if _, ok := obj[req]; !ok {
				t.Fatalf("accepted %s without required %q", args, req)
			}
		}
		again, fail := checkArgs(tool, string(args))
		if fail != nil {
			t.Fatalf("normalised arguments %s are rejected: %s", args, fail.Content)
		}
		if !bytes.Equal(again, args) {
			t.Fatalf("normalising is not idempotent: %s then %s", args, again)
		}
		if c := decodeCall(t, tool, string(args)); c.Failure != nil && c.Failure.OK {
			t.Fatalf("a decoding failure is marked ok: %+v", c.Failure)
		}
	})
}

// FuzzSchemaCheck runs the argument check with any schema against any
// arguments: tools from MCP servers bring schemas of their own, so both
// sides are outside input. It must never panic, and a failure is always a
// Failure result.
func FuzzSchemaCheck(f *testing.F) {
	f.Add(`{"type":"object","properties":{"a":{"type":"integer"}},"required":["a"]}`, `{"a":1.0}`)
	f.Add(`{"type":["string","null"],"enum":["x",null]}`, `null`)
	f.Add(`{"type":"object","additionalProperties":false,"properties":{"l":{"type":"array","items":{"type":"number"}}}}`, `{"l":[1,"2"]}`)
	f.Add(`{"type":"object","properties":{"o":{"type":"object","properties":{"p":{"enum":[1,2.0,"1"]}}}}}`, `{"o":{"p":2}}`)
	f.Add(`{"type":7,"properties":[],"required":{}}`, `{}`)
	f.Add(`{"items":{"items":{"type":"integer"}}}`, `[[1e400]]`)
	f.Add(`true`, `{}`)
	f.Fuzz(func(t *testing.T, sch, raw string) {
		tool := schemaTool(sch)
		_, fail := checkArgs(tool, raw)
		if fail != nil && fail.OK {
			t.Fatalf("a rejection is marked ok: %+v", fail)
		}
		// Execute adds the recover guard; it must turn anything into a result.
		res, err := execRaw(context.Background(), tool, raw)
		if err != nil {
			t.Fatalf("Execute returned an infrastructure error for bad input: %v", err)
		}
		_ = res
	})
}

// schemaTool is a tool with a given schema whose Run does nothing.
type schemaTool string

func (schemaTool) Name() string              { return "fuzzed" }
func (schemaTool) Description() string       { return "" }
func (s schemaTool) Schema() json.RawMessage { return json.RawMessage(s) }
func (schemaTool) Facts() Facts              { return Facts{Kind: chat.ToolRead} }
func (schemaTool) Prepare(*Call) error       { return nil }
func (schemaTool) Run(context.Context, *Call) (Result, error) {
	return Result{OK: true, Content: "ran"}, nil
}
