package tools

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/chat"
)

// fakeTool is a minimal Tool for registry and Execute tests.
type fakeTool struct {
	name   string
	schema string
	run    func(args json.RawMessage) (Result, error)
}

func (f fakeTool) Name() string            { return f.name }
func (f fakeTool) Description() string     { return "fake " + f.name }
func (f fakeTool) Schema() json.RawMessage { return json.RawMessage(f.schema) }
func (f fakeTool) Facts() Facts            { return Facts{Kind: chat.ToolRead} }
func (f fakeTool) Prepare(*Call) error     { return nil }
func (f fakeTool) Run(_ context.Context, c *Call) (Result, error) {
	if f.run != nil {
		return f.run(c.Input)
	}
	return Result{OK: true, Content: string(c.Input)}, nil
}

func TestRegistryKeepsOrderAndRefusesDuplicates(t *testing.T) {
	t.Parallel()
	a, b, c := fakeTool{name: "a", schema: `{}`}, fakeTool{name: "b", schema: `{}`}, fakeTool{name: "c", schema: `{}`}
	r, err := NewRegistry(b, a)
	if err != nil {
		t.Fatal(err)
	}
	if err := r.Add(c); err != nil {
		t.Fatal(err)
	}
	if got := r.Names(); !slices.Equal(got, []string{"b", "a", "c"}) {
		t.Fatalf("Names = %v", got)
	}
	if err := r.Add(fakeTool{name: "a", schema: `{"x":1}`}); err == nil || !strings.Contains(err.Error(), `duplicate tool name "a"`) {
		t.Fatalf("duplicate Add: err = %v", err)
	}
	if got, _ := r.Get("a"); string(got.Schema()) != `{}` {
		t.Fatal("duplicate replaced the first tool")
	}
	if _, err := NewRegistry(a, a); err == nil {
		t.Fatal("NewRegistry accepted a duplicate")
	}
	if err := r.Add(nil); err == nil {
		t.Fatal("Add(nil) accepted")
	}
	if err := r.Add(fakeTool{}); err == nil {
		t.Fatal("empty name accepted")
	}
	if _, ok := r.Get("zzz"); ok {
		t.Fatal("Get of unknown tool")
	}
	if len(r.Tools()) != 3 {
		t.Fatalf("Tools = %d", len(r.Tools()))
	}
}

func TestRegistrySpecs(t *testing.T) {
	t.Parallel()
	r, err := NewRegistry(Builtins(Env{Workspace: newWS(t)})...)
	if err != nil {
		t.Fatal(err)
	}
	all := r.Specs(nil)
	var names []string
	for _, s := range all {
		names = append(names, s.Name)
		if s.Description == "" || !json.Valid(s.Parameters) {
			t.Errorf("%s: empty description or invalid schema", s.Name)
		}
	}
	if want := []string{"read", "list", "glob", "grep", "write", "edit", "patch", "bash", "bash_output", "bash_kill"}; !slices.Equal(names, want) {
		t.Fatalf("spec names = %v, want %v", names, want)
	}
	readOnly := r.Specs(func(name string) bool {
		tool, _ := r.Get(name)
		return readOnly(tool.Facts().Kind)
	})
	if len(readOnly) != 5 || readOnly[3].Name != "grep" || readOnly[4].Name != "bash_output" {
		t.Fatalf("filtered specs = %v", readOnly)
	}
}

// The tool set is sent with every request: keep it small.
func TestBuiltinDescriptionsStaySmall(t *testing.T) {
	t.Parallel()
	total := 0
	for _, tool := range Builtins(Env{Workspace: newWS(t)}) {
		limit := 700
		if tool.Name() == "patch" {
			limit = 1200 // the format needs an example
		}
		if n := len(tool.Description()); n > limit {
			t.Errorf("%s description is %d bytes", tool.Name(), n)
		}
		total += len(tool.Description()) + len(tool.Schema())
	}
	if total > 6720 { // 6000 before background tasks (bash's background, bash_output, bash_kill), 6650 before read's images
		t.Errorf("descriptions + schemas = %d bytes", total)
	}
	t.Logf("descriptions + schemas: %d bytes", total)
}

func TestSummaries(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	tests := []struct{ tool, args, want string }{
		{"read", `{"path":"main.go"}`, "main.go"},
		{"read", `{"path":"main.go","offset":40}`, "main.go from line 40"},
		{"list", `{}`, "."},
		{"glob", `{"pattern":"**/*.go","path":"internal"}`, "**/*.go in internal"},
		{"grep", `{"pattern":"func main","include":"*.go"}`, `"func main" (*.go)`},
		{"write", `{"path":"a.txt","content":"x"}`, "a.txt"},
		{"edit", `{"path":"a.txt","old_string":"x","new_string":"y"}`, "a.txt"},
		{"patch", `{"patch":"*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** End Patch"}`, "a.txt, b.txt"},
		{"bash", `{"command":"go test ./...\necho done"}`, "go test ./...…"},
	}
	for _, tt := range tests {
		if got := decodeCall(t, builtin(t, ws, tt.tool), tt.args).Summary; got != tt.want {
			t.Errorf("%s %s: %q, want %q", tt.tool, tt.args, got, tt.want)
		}
	}
}
