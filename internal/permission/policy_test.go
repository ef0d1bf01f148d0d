package permission

import (
	"strings"
	"sync"
	"testing"

	"github.com/coder-agent/coder/internal/agent"
	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/shell"
	"github.com/coder-agent/coder/internal/tools"
)

func newEngine(t *testing.T, p config.Permission) *Engine {
	t.Helper()
	e, err := newPolicy(PolicyOptions{Permission: p})
	if err != nil {
		t.Fatal(err)
	}
	return e
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
		an := shell.Analyze(tt.command, shell.Options{Workspace: "/"})
		if len(an.Commands) != 1 {
			t.Fatalf("%q: %d commands", tt.command, len(an.Commands))
		}
		r := compileRule(Rule{Tool: "bash", Pattern: tt.pattern, Action: Allow})
		if got := r.matchCommand(an.Commands[0], normalize(tt.command)); got != tt.want {
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
	if d := decide(e, bashCall("git status", "")); d.Action != Allow {
		t.Errorf("git status: %+v", d)
	}
	if d := decide(e, bashCall("git log", "")); d.Action != Deny || !strings.Contains(d.Reason, `config permission.bash[0]: "git *"`) {
		t.Errorf("git log: %+v", d)
	}
	e = newEngine(t, config.Permission{Bash: []config.BashRule{
		{Pattern: "git status*", Action: "allow"}, {Pattern: "git *", Action: "deny"}}})
	if d := decide(e, bashCall("git status", "")); d.Action != Deny {
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
		d := decide(e, bashCall(tt.command, ""))
		if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%q: %+v, want %s with %q", tt.command, d, tt.want, tt.reason)
		}
	}
}

func TestUserRulesOverridePreset(t *testing.T) {
	e := newEngine(t, config.Permission{Default: "deny",
		Tools: map[string]string{"write": "ask", "bash": "allow", "*": "ask"}})
	if d := decide(e, fileCall("write", "a.go", "")); d.Action != Ask || !strings.Contains(d.Reason, "config permission.tools.write") {
		t.Errorf("write: %+v", d)
	}
	if d := decide(e, bashCall("docker build .", "")); d.Action != Allow {
		t.Errorf("bash: %+v", d)
	}
	// "*" is applied before named tools, so "read" stays ask only through "*".
	if d := decide(e, fileCall("read", "a.go", "")); d.Action != Ask {
		t.Errorf("read under tools.*=ask: %+v", d)
	}
	// permission.default is the fallback under the preset: the preset's
	// allows stand, tools nobody mentions take it.
	e = newEngine(t, config.Permission{Default: "deny"})
	if d := decide(e, otherCall("mcp_github_create_issue", "", false)); d.Action != Deny {
		t.Errorf("unknown tool under default deny: %+v", d)
	}
	if d := decide(e, fileCall("read", "a.go", "")); d.Action != Allow {
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
		if d := decide(e, bashCall(tt.command, "")); d.Action != tt.want {
			t.Errorf("%q: %+v, want %s", tt.command, d, tt.want)
		}
	}
}

func TestAllowExactSuppressesAskNotDanger(t *testing.T) {
	e := newEngine(t, config.Permission{})
	if d := decide(e, bashCall("rm -rf ./build", "")); d.Action != Ask {
		t.Fatalf("before always: %+v", d)
	}
	e.AllowExact("bash", "rm -rf ./build")
	d := decide(e, bashCall("rm -rf ./build", ""))
	if d.Action != Allow || !strings.Contains(d.Reason, `approved with "always"`) {
		t.Errorf("after always: %+v", d)
	}
	if d := decide(e, bashCall("rm -rf ./src", "")); d.Action != Ask {
		t.Errorf("a different command: %+v", d)
	}
	// "always" on a dangerous command passes the policy, but the danger
	// analysis (the tool's reasons) still asks.
	e.AllowExact("bash", "rm -rf /")
	if d := decide(e, bashCall("rm -rf /", "")); d.Action != Allow {
		t.Errorf("policy after always: %+v", d)
	}
	if c := bashCall("rm -rf /", "").c; len(c.Reasons) == 0 {
		t.Error("danger reasons gone after always")
	}
	s := newEngine(t, config.Permission{Preset: "strict"})
	s.AllowExact("write", "a.go")
	s.AllowExact("fetch", "")
	if d := decide(s, fileCall("write", "a.go", "")); d.Action != Allow {
		t.Errorf("write a.go: %+v", d)
	}
	if d := decide(s, fileCall("write", "b.go", "")); d.Action != Ask {
		t.Errorf("write b.go: %+v", d)
	}
	if d := decide(s, probe{decode(probeWS, "fetch", map[string]string{"url": "https://x"}), agent.Build}); d.Action != Allow {
		t.Errorf("fetch: %+v", d)
	}
}

// TestPlanFloor: user rules and the allowlist can tighten plan mode but
// not loosen it.
func TestPlanFloor(t *testing.T) {
	e := newEngine(t, config.Permission{Tools: map[string]string{"bash": "allow", "write": "allow"},
		Bash: []config.BashRule{{Pattern: "cat *", Action: "deny"}}, CommandAllowlist: []string{"make"}})
	tests := []struct {
		call   probe
		want   Action
		danger bool
	}{
		{bashCall("make", agent.Plan), Ask, true},
		{bashCall("docker build .", agent.Plan), Ask, true},
		{bashCall("ls", agent.Plan), Allow, false},
		{bashCall("bash -c 'ls' > out.txt", agent.Plan), Ask, true},
		{bashCall("eval ls > out.txt", agent.Plan), Ask, true},
		{bashCall("cat x", agent.Plan), Deny, false},
		{bashCall("git push", agent.Plan), Deny, false},
		{fileCall("write", "a.go", agent.Plan), Deny, false},
		{fileCall("read", "a.go", agent.Plan), Allow, false},
		{bashCall("make", agent.Build), Allow, false},
		{fileCall("write", "a.go", agent.Build), Allow, false},
	}
	for _, tt := range tests {
		d := decide(e, tt.call)
		if d.Action != tt.want || d.Danger != tt.danger {
			t.Errorf("%s: %+v, want %s danger=%v", tt.call, d, tt.want, tt.danger)
		}
	}
}

func TestPresetPlanSelectsPlanMode(t *testing.T) {
	if _, mode, err := ParsePreset("plan"); err != nil || mode != agent.Plan {
		t.Fatalf("ParsePreset(plan) = %q, %v", mode, err)
	}
	p := newEngine(t, config.Permission{Preset: "plan"})
	if d := decide(p, fileCall("edit", "a.go", agent.Plan)); d.Action != Deny {
		t.Errorf("plan mode edit: %+v", d)
	}
}

func TestFileToolsAndOthers(t *testing.T) {
	s := newEngine(t, config.Permission{Preset: "strict"})
	patch := decode(probeWS, "patch", map[string]string{"patch": "*** Begin Patch\n*** Add File: a.go\n+x\n*** Update File: b.go\n@@\n-a\n+b\n*** End Patch"})
	tests := []struct {
		e      *Engine
		call   probe
		want   Action
		reason string
	}{
		{s, fileCall("write", "src/a.go", ""), Ask, `write: "src/a.go" requires approval (strict preset)`},
		{s, fileCall("read", "src/a.go", ""), Allow, ""},
		{s, probe{decode(probeWS, "grep", map[string]string{"pattern": "x"}), agent.Build}, Allow, ""},
		{s, probe{decode(probeWS, "fetch", map[string]string{"url": "https://go.dev"}), agent.Build}, Ask, `fetch: "go.dev" requires approval`},
		{s, otherCall("mcp_x", "", false), Ask, "mcp_x requires approval (defaults)"},
		{s, probe{patch, agent.Plan}, Deny, `patch: "a.go" is denied (plan mode)`},
		{newEngine(t, config.Permission{Preset: "yolo"}), otherCall("mcp_x", "", false), Allow, "yolo preset"},
	}
	for _, tt := range tests {
		d := decide(tt.e, tt.call)
		if d.Action != tt.want || !strings.Contains(d.Reason, tt.reason) {
			t.Errorf("%s: %+v, want %s with %q", tt.call, d, tt.want, tt.reason)
		}
	}
}

func TestParsePreset(t *testing.T) {
	tests := []struct {
		in, preset string
		mode       agent.Mode
	}{
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
	if d := decide(e, bashCall("go test ./...", "")); d.Action != Ask {
		t.Errorf("strict go test: %+v", d)
	}
	if d := decide(e, bashCall("docker build .", "")); d.Action != Allow {
		t.Errorf("runtime rule lost: %+v", d)
	}
	mode, err := e.SetPreset("plan")
	if err != nil || mode != agent.Plan {
		t.Fatalf("SetPreset(plan) = %q, %v", mode, err)
	}
	if d := decide(e, fileCall("write", "a.go", mode)); d.Action != Deny {
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
		if _, err := NewPolicy(PolicyOptions{Permission: p}); err == nil {
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
				decide(e, bashCall("ls && rm x", ""))
				if i == 0 {
					e.AllowExact("bash", "rm x")
				}
			}
		})
	}
	wg.Wait()
	if d := decide(e, bashCall("ls && rm x", "")); d.Action != Allow {
		t.Errorf("after AllowExact: %+v", d)
	}
}

func TestReadOnlyExtensionToolsAreAllowed(t *testing.T) {
	e := newEngine(t, config.Permission{})
	if d := decide(e, otherCall("mcp__srv__lookup", "", true)); d.Action != Allow {
		t.Fatalf("read-only MCP tool: %+v", d)
	}
	if d := decide(e, otherCall("mcp__srv__write", "", false)); d.Action != Ask {
		t.Fatalf("mutating MCP tool: %+v", d)
	}
	deny := newEngine(t, config.Permission{Tools: map[string]string{"mcp__srv__lookup": "deny"}})
	if d := decide(deny, otherCall("mcp__srv__lookup", "", true)); d.Action != Deny {
		t.Fatalf("an explicit rule must win over the read-only flag: %+v", d)
	}
}

// An agent's preset is in force while it is active and "" gives the
// session's back; /permissions overrides it; a mode name is refused.
func TestUseAgentPreset(t *testing.T) {
	e := newEngine(t, config.Permission{Preset: "auto-edit"})
	e.AllowExact("bash", "docker build .")
	if err := e.UseAgentPreset("strict"); err != nil || e.Preset() != "strict" {
		t.Fatalf("UseAgentPreset(strict): %v, preset %s", err, e.Preset())
	}
	if d := decide(e, fileCall("write", "a.go", "")); d.Action != Ask || !strings.Contains(d.Reason, "strict preset") {
		t.Errorf("write under the agent's strict: %+v", d)
	}
	if d := decide(e, bashCall("docker build .", "")); d.Action != Allow {
		t.Errorf("runtime rule lost: %+v", d)
	}
	if !strings.HasPrefix(e.Matrix(agent.Build), "Permissions: preset strict,") {
		t.Errorf("the matrix does not show the agent's preset:\n%s", e.Matrix(agent.Build))
	}
	for _, bad := range []string{"plan", "build", "lax"} {
		if err := e.UseAgentPreset(bad); err == nil || e.Preset() != "strict" {
			t.Errorf("UseAgentPreset(%s) = %v, preset %s", bad, err, e.Preset())
		}
	}
	if err := e.UseAgentPreset(""); err != nil || e.Preset() != "auto-edit" {
		t.Fatalf("UseAgentPreset(\"\"): %v, preset %s", err, e.Preset())
	}
	if d := decide(e, bashCall("mv a b", "")); d.Action != Allow {
		t.Errorf("auto-edit not back: %+v", d)
	}
	_ = e.UseAgentPreset("yolo")
	if _, err := e.SetPreset("strict"); err != nil || e.Preset() != "strict" {
		t.Fatalf("/permissions strict under a yolo agent: %v, preset %s", err, e.Preset())
	}
}

// Plan mode's floor holds for a call whose tool the engine was never told
// of: the rules come from the facts of the call's own tool, not only from a
// list a front end must remember to hand over.
func TestPlanFloorWithoutUseTools(t *testing.T) {
	for _, preset := range []string{"plan", "auto-edit"} {
		e, err := NewPolicy(PolicyOptions{Permission: config.Permission{Preset: preset}})
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{tools.Edit, tools.Write, tools.Patch} {
			if d := decide(e, fileCall(tool, "a.txt", agent.Plan)); d.Action != Deny {
				t.Errorf("%s: %s in plan mode by an engine never told of its tools: %s (%s), want deny", preset, tool, d.Action, d.Reason)
			}
		}
		// Control: what changes nothing still runs in plan mode.
		if d := decide(e, fileCall(tools.Read, "a.txt", agent.Plan)); d.Action != Allow {
			t.Errorf("%s: read in plan mode: %s (%s), want allow", preset, d.Action, d.Reason)
		}
	}
}

// The compiled rules are derived on the first decision after a change: an
// engine that decided before each change answers exactly like one told of
// the same changes before it ever decided.
func TestRulesRederivedAfterEachChange(t *testing.T) {
	used := newEngine(t, config.Permission{})
	fresh := newEngine(t, config.Permission{})
	probes := []probe{bashCall("go test ./...", ""), bashCall("docker build .", ""),
		fileCall(tools.Write, "a.go", ""), fileCall(tools.Write, "a.go", agent.Plan), bashCall("mv a b", "")}
	changes := []func(e *Engine){
		func(e *Engine) { e.AllowExact(tools.Bash, "docker build .") },
		func(e *Engine) { _, _ = e.SetPreset(PresetStrict) },
		func(e *Engine) { _ = e.UseAgentPreset(PresetAutoEdit) },
		func(e *Engine) { _ = e.UseAgentPreset("") },
	}
	for i, change := range changes {
		for _, p := range probes {
			decide(used, p)
		}
		change(used)
		for _, c := range changes[:i+1] {
			c(fresh)
		}
		for _, p := range probes {
			if got, want := decide(used, p), decide(fresh, p); got != want {
				t.Errorf("after change %d, %s: %+v, want %+v", i, p, got, want)
			}
		}
		for _, m := range []agent.Mode{agent.Build, agent.Plan} {
			if got, want := used.Matrix(m), fresh.Matrix(m); got != want {
				t.Errorf("after change %d, %s matrix:\n%s\nwant\n%s", i, m, got, want)
			}
		}
		fresh = newEngine(t, config.Permission{})
	}
}
