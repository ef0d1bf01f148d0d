package permission

import (
	"encoding/json"
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/config"
)

func newEngine(t *testing.T, p config.Permission) *Engine {
	t.Helper()
	e, err := NewPolicy(PolicyOptions{Permission: p, Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func fileCall(tool, path, agent string) Call {
	args, _ := json.Marshal(map[string]string{"path": path})
	return Call{Tool: tool, Args: args, Agent: agent}
}

func TestPatternMatchesParsedArgv(t *testing.T) {
	tests := []struct {
		pattern, command string
		want             bool
	}{
		{"git status*", "git status", true},
		{"git status*", "git status -s", true},
		{"git status*", "git   status  --short", true},
		{"git status*", "'git' \"status\"", true},
		{"git status*", "git statusx", false},
		{"git status*", "echo git status", false},
		{"git status*", "/usr/bin/git status", false},
		{"git status*", "$GIT status", false},
		{"git status *", "git status", true},
		{"npm run test*", "npm run test -- --watch", true},
		{"npm run test*", "npm run test:unit", false},
		{"npm run test:*", "npm run test --ci", true},
		{"go test ./...", "go test ./...", true},
		{"go test ./...", "go test ./... -v", false},
		{"go test ./...", "go test", false},
		{"rm *.tmp", "rm a.tmp", true},
		{"rm *.tmp", "rm a.go", false},
		{"rm *.tmp", "rm a.tmp b.tmp", false},
		{"cat *", "cat $FILE", true},
		{"rm -rf /tmp/*", "rm -rf /tmp/cache", true},
		{"rm -rf /tmp/*", "rm -rf /tmp/a /tmp/b", true},
		{"rm -rf /tmp/*", "rm -rf /etc", false},
		{"rm -rf /*", "rm -rf /etc", true},
		{"docker compose ?p*", "docker compose up -d", true},
		{"*", "anything at all", true},
		{"", "anything at all", true},
	}
	for _, tt := range tests {
		an := newAnalyzer(AnalyzeOptions{Workspace: "/"})
		an.source(tt.command, ctx{}, 0)
		if len(an.cmds) != 1 {
			t.Fatalf("%q: %d commands", tt.command, len(an.cmds))
		}
		r := compileRule(Rule{Tool: "bash", Pattern: tt.pattern, Action: Allow})
		if got := r.matchCommand(an.cmds[0], normalize(tt.command)); got != tt.want {
			t.Errorf("%q matches %q = %v, want %v", tt.pattern, tt.command, got, tt.want)
		}
	}
}

func TestPathPatterns(t *testing.T) {
	tests := []struct {
		pattern, rel, abs string
		want              bool
	}{
		{"src/**/*.go", "src/x/a.go", "/ws/src/x/a.go", true},
		{"src/**/*.go", "docs/a.md", "/ws/docs/a.md", false},
		{"**/.env", ".env", "/ws/.env", true},
		{"/etc/**", "", "/etc/hosts", true},
		{"*", "", "/etc/hosts", true},
	}
	for _, tt := range tests {
		r := Rule{Tool: "edit", Pattern: tt.pattern}
		if got := r.matchPath(tt.rel, tt.abs); got != tt.want {
			t.Errorf("%q matches %q/%q = %v, want %v", tt.pattern, tt.rel, tt.abs, got, tt.want)
		}
	}
}

func TestLastMatchWins(t *testing.T) {
	e := newEngine(t, config.Permission{Bash: []config.BashRule{
		{Pattern: "git *", Action: "deny"}, {Pattern: "git status*", Action: "allow"}}})
	if d := e.Decide(bashCall("git status", "")); d.Action != Allow {
		t.Errorf("git status: %+v", d)
	}
	if d := e.Decide(bashCall("git log", "")); d.Action != Deny || !strings.Contains(d.Reason, `config permission.bash[0]: "git *"`) {
		t.Errorf("git log: %+v", d)
	}
	e = newEngine(t, config.Permission{Bash: []config.BashRule{
		{Pattern: "git status*", Action: "allow"}, {Pattern: "git *", Action: "deny"}}})
	if d := e.Decide(bashCall("git status", "")); d.Action != Deny {
		t.Errorf("reversed order, git status: %+v", d)
	}
}

func TestCompoundTakesMostRestrictive(t *testing.T) {
	e := newEngine(t, config.Permission{Bash: []config.BashRule{{Pattern: "rm *", Action: "deny"}}})
	tests := []struct {
		command string
		want    Action
		reason  string
	}{
		{"ls | grep x", Allow, ""},
		{"ls && go test ./...", Allow, ""},
		{"ls && make install; echo done", Allow, ""},
		{"ls && rm x", Deny, `bash: "rm x" is denied (config permission.bash[0]: "rm *")`},
		{"echo $(rm x)", Deny, `"rm x"`},
		{"go test ./... || curl example.com", Ask, `bash: "curl example.com" requires approval (balanced preset)`},
		{"curl example.com; rm x", Deny, `"rm x"`},
	}
	for _, tt := range tests {
		d := e.Decide(bashCall(tt.command, ""))
		if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%q: %+v, want %s with %q", tt.command, d, tt.want, tt.reason)
		}
	}
}

func TestUserRulesOverridePreset(t *testing.T) {
	e := newEngine(t, config.Permission{Default: "deny",
		Tools: map[string]string{"write": "ask", "bash": "allow", "*": "ask"}})
	if d := e.Decide(fileCall("write", "a.go", "")); d.Action != Ask || !strings.Contains(d.Reason, "config permission.tools.write") {
		t.Errorf("write: %+v", d)
	}
	if d := e.Decide(bashCall("docker build .", "")); d.Action != Allow {
		t.Errorf("bash: %+v", d)
	}
	// "*" is applied before named tools, so "read" stays ask only through "*".
	if d := e.Decide(fileCall("read", "a.go", "")); d.Action != Ask {
		t.Errorf("read under tools.*=ask: %+v", d)
	}
	// permission.default is the fallback under the preset: the preset's
	// allows stand, tools nobody mentions take it.
	e = newEngine(t, config.Permission{Default: "deny"})
	if d := e.Decide(Call{Tool: "mcp_github_create_issue", Args: json.RawMessage(`{}`)}); d.Action != Deny {
		t.Errorf("unknown tool under default deny: %+v", d)
	}
	if d := e.Decide(fileCall("read", "a.go", "")); d.Action != Allow {
		t.Errorf("read under default deny: %+v", d)
	}
}

func TestAllowlistMatchesExactly(t *testing.T) {
	e := newEngine(t, config.Permission{Preset: "strict", CommandAllowlist: []string{
		"npm run deploy --prod", "go build ./... && ./bin/app", "docker compose up"}})
	tests := []struct {
		command string
		want    Action
	}{
		{"npm run deploy --prod", Allow},
		{"npm  run deploy   --prod", Allow},
		{"npm run deploy --prod --force", Ask},
		{"npm run deploy", Ask},
		{"go build ./... && ./bin/app", Allow},
		{"./bin/app", Ask},
		{"ls && docker compose up", Allow},
		{"docker compose up && rm x", Ask},
	}
	for _, tt := range tests {
		if d := e.Decide(bashCall(tt.command, "")); d.Action != tt.want {
			t.Errorf("%q: %+v, want %s", tt.command, d, tt.want)
		}
	}
}

func TestAllowExactSuppressesAskNotDanger(t *testing.T) {
	e := newEngine(t, config.Permission{})
	if d := e.Decide(bashCall("rm -rf ./build", "")); d.Action != Ask {
		t.Fatalf("before always: %+v", d)
	}
	e.AllowExact("bash", "rm -rf ./build")
	d := e.Decide(bashCall("rm -rf ./build", ""))
	if d.Action != Allow || !strings.Contains(d.Reason, `approved with "always"`) {
		t.Errorf("after always: %+v", d)
	}
	if d := e.Decide(bashCall("rm -rf ./src", "")); d.Action != Ask {
		t.Errorf("a different command: %+v", d)
	}
	// "always" on a dangerous command passes the policy, but the danger
	// analysis (the tool's reasons) still asks.
	e.AllowExact("bash", "rm -rf /")
	if d := e.Decide(bashCall("rm -rf /", "")); d.Action != Allow {
		t.Errorf("policy after always: %+v", d)
	}
	if an := AnalyzeBash("rm -rf /", "", e.workspace); len(an.Reasons) == 0 {
		t.Error("danger reasons gone after always")
	}
	s := newEngine(t, config.Permission{Preset: "strict"})
	s.AllowExact("write", "a.go")
	s.AllowExact("fetch", "")
	if d := s.Decide(fileCall("write", "a.go", "")); d.Action != Allow {
		t.Errorf("write a.go: %+v", d)
	}
	if d := s.Decide(fileCall("write", "b.go", "")); d.Action != Ask {
		t.Errorf("write b.go: %+v", d)
	}
	if d := s.Decide(Call{Tool: "fetch", Args: json.RawMessage(`{"url":"https://x"}`)}); d.Action != Allow {
		t.Errorf("fetch: %+v", d)
	}
}

// TestPlanFloor: user rules and the allowlist can tighten plan mode but
// not loosen it.
func TestPlanFloor(t *testing.T) {
	e := newEngine(t, config.Permission{Tools: map[string]string{"bash": "allow", "write": "allow"},
		Bash: []config.BashRule{{Pattern: "cat *", Action: "deny"}}, CommandAllowlist: []string{"make"}})
	tests := []struct {
		call   Call
		want   Action
		danger bool
	}{
		{bashCall("make", ModePlan), Ask, true},
		{bashCall("docker build .", ModePlan), Ask, true},
		{bashCall("ls", ModePlan), Allow, false},
		{bashCall("bash -c 'ls' > out.txt", ModePlan), Ask, true},
		{bashCall("eval ls > out.txt", ModePlan), Ask, true},
		{bashCall("cat x", ModePlan), Deny, false},
		{bashCall("git push", ModePlan), Deny, false},
		{fileCall("write", "a.go", ModePlan), Deny, false},
		{fileCall("read", "a.go", ModePlan), Allow, false},
		{bashCall("make", ModeBuild), Allow, false},
		{fileCall("write", "a.go", ModeBuild), Allow, false},
	}
	for _, tt := range tests {
		d := e.Decide(tt.call)
		if d.Action != tt.want || d.Danger != tt.danger {
			t.Errorf("%s %s (%s): %+v, want %s danger=%v", tt.call.Tool, tt.call.Args, tt.call.Agent, d, tt.want, tt.danger)
		}
	}
}

func TestAgentModesAndDefaultAgent(t *testing.T) {
	e, err := NewPolicy(PolicyOptions{Workspace: t.TempDir(), AgentModes: map[string]string{"reviewer": "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(fileCall("edit", "a.go", "reviewer")); d.Action != Deny {
		t.Errorf("reviewer edit: %+v", d)
	}
	p, err := NewPolicy(PolicyOptions{Workspace: t.TempDir(), Permission: config.Permission{Preset: "plan"}})
	if err != nil {
		t.Fatal(err)
	}
	if d := p.Decide(fileCall("edit", "a.go", "")); d.Action != Deny {
		t.Errorf("preset plan, no agent: %+v", d)
	}
}

func TestFileToolsAndOthers(t *testing.T) {
	s := newEngine(t, config.Permission{Preset: "strict"})
	tests := []struct {
		e      *Engine
		call   Call
		want   Action
		reason string
	}{
		{s, fileCall("write", "src/a.go", ""), Ask, `write: "src/a.go" requires approval (strict preset)`},
		{s, fileCall("read", "src/a.go", ""), Allow, ""},
		{s, Call{Tool: "grep", Args: json.RawMessage(`{"pattern":"x"}`)}, Allow, ""},
		{s, Call{Tool: "fetch", Args: json.RawMessage(`{"url":"https://go.dev"}`)}, Ask, `fetch: "https://go.dev" requires approval`},
		{s, Call{Tool: "mcp_x", Args: json.RawMessage(`{}`)}, Ask, "mcp_x requires approval (defaults)"},
		{s, Call{Tool: "patch", Agent: ModePlan, Args: json.RawMessage(
			`{"patch":"*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n*** End Patch"}`)}, Deny, `patch: "a.go" is denied (plan mode)`},
		{s, Call{Tool: "bash", Args: json.RawMessage(`not json`)}, Ask, "arguments could not be read"},
		{newEngine(t, config.Permission{Preset: "yolo"}), Call{Tool: "mcp_x", Args: json.RawMessage(`{}`)}, Allow, "yolo preset"},
	}
	for _, tt := range tests {
		d := tt.e.Decide(tt.call)
		if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%s %s: %+v, want %s with %q", tt.call.Tool, tt.call.Args, d, tt.want, tt.reason)
		}
	}
}

func TestParsePreset(t *testing.T) {
	tests := []struct{ in, preset, mode string }{
		{"", "balanced", ""}, {"strict", "strict", ""}, {" Balanced ", "balanced", ""},
		{"auto-edit", "auto-edit", ""}, {"auto_edit", "auto-edit", ""}, {"yolo", "yolo", ""},
		{"build", "balanced", "build"}, {"plan", "balanced", "plan"},
	}
	for _, tt := range tests {
		p, m, err := ParsePreset(tt.in)
		if err != nil || p != tt.preset || m != tt.mode {
			t.Errorf("ParsePreset(%q) = %q, %q, %v", tt.in, p, m, err)
		}
	}
	if _, _, err := ParsePreset("lax"); err == nil || !strings.Contains(err.Error(), "auto-edit") {
		t.Errorf("ParsePreset(lax) error = %v", err)
	}
}

func TestSetPresetKeepsRuntimeRules(t *testing.T) {
	e := newEngine(t, config.Permission{})
	e.AllowExact("bash", "docker build .")
	if mode, err := e.SetPreset("strict"); err != nil || mode != "" || e.Preset() != "strict" {
		t.Fatalf("SetPreset(strict) = %q, %v", mode, err)
	}
	if d := e.Decide(bashCall("go test ./...", "")); d.Action != Ask {
		t.Errorf("strict go test: %+v", d)
	}
	if d := e.Decide(bashCall("docker build .", "")); d.Action != Allow {
		t.Errorf("runtime rule lost: %+v", d)
	}
	if mode, err := e.SetPreset("plan"); err != nil || mode != "plan" {
		t.Fatalf("SetPreset(plan) = %q, %v", mode, err)
	}
	if d := e.Decide(fileCall("write", "a.go", "")); d.Action != Deny {
		t.Errorf("after /permissions plan: %+v", d)
	}
	if _, err := e.SetPreset("nope"); err == nil {
		t.Error("SetPreset(nope): no error")
	}
}

func TestNewPolicyRejectsBadConfig(t *testing.T) {
	for _, p := range []config.Permission{
		{Preset: "lax"}, {Default: "maybe"}, {Tools: map[string]string{"bash": "yes"}},
		{Bash: []config.BashRule{{Pattern: "x", Action: "nope"}}},
	} {
		if _, err := NewPolicy(PolicyOptions{Permission: p, Workspace: t.TempDir()}); err == nil {
			t.Errorf("NewPolicy(%+v): no error", p)
		}
	}
}

func TestDecideConcurrentWithAllowExact(t *testing.T) {
	e := newEngine(t, config.Permission{})
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for range 20 {
				e.Decide(bashCall("ls && rm x", ""))
				if i == 0 {
					e.AllowExact("bash", "rm x")
				}
			}
		})
	}
	wg.Wait()
	if d := e.Decide(bashCall("ls && rm x", "")); d.Action != Allow {
		t.Errorf("after AllowExact: %+v", d)
	}
}

func TestReadOnlyExtensionToolsAreAllowed(t *testing.T) {
	e, err := NewPolicy(PolicyOptions{Agent: "build", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	if d := e.Decide(Call{Tool: "mcp__srv__lookup", Agent: "build", ReadOnly: true}); d.Action != Allow {
		t.Fatalf("read-only MCP tool: %+v", d)
	}
	if d := e.Decide(Call{Tool: "mcp__srv__write", Agent: "build"}); d.Action != Ask {
		t.Fatalf("mutating MCP tool: %+v", d)
	}
	deny, err := NewPolicy(PolicyOptions{Agent: "build", Workspace: t.TempDir(),
		Permission: config.Permission{Tools: map[string]string{"mcp__srv__lookup": "deny"}}})
	if err != nil {
		t.Fatal(err)
	}
	if d := deny.Decide(Call{Tool: "mcp__srv__lookup", Agent: "build", ReadOnly: true}); d.Action != Deny {
		t.Fatalf("an explicit rule must win over the read-only flag: %+v", d)
	}
}
