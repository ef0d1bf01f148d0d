//go:build e2e

package e2e

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// Hooks through the built binary: real hook scripts, run as the person's
// own programs, configured as a Claude Code user would.

// hookWorld is a git workspace, a directory of hook scripts (in the
// person's home, as ~/.claude/hooks: a sandboxed command sees no other
// directory of /tmp) and the person's config dir.
type hookWorld struct {
	ws, scripts string
	env         map[string]string
}

func newHookWorld(t *testing.T) *hookWorld {
	t.Helper()
	env := baseEnv(t)
	scripts := filepath.Join(env["HOME"], "hooks")
	if err := os.MkdirAll(scripts, 0o755); err != nil {
		t.Fatal(err)
	}
	return &hookWorld{ws: planWorkspace(t), scripts: scripts, env: env}
}

// script writes an executable hook script and returns its path.
func (w *hookWorld) script(t *testing.T, name, body string) string {
	t.Helper()
	return w.scriptFor(t, "/bin/sh", name, body)
}

// scriptFor is script with another interpreter.
func (w *hookWorld) scriptFor(t *testing.T, interpreter, name, body string) string {
	t.Helper()
	p := filepath.Join(w.scripts, name)
	if err := os.WriteFile(p, []byte("#!"+interpreter+"\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return p
}

// userHooks writes the person's config with these hooks (the JSON value
// of "hooks").
func (w *hookWorld) userHooks(t *testing.T, hooks string) {
	t.Helper()
	writeFile(t, filepath.Join(w.env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"hooks": `+hooks+`}`)
}

// group is one event's single matcher group running command.
func group(event, matcher, command string, timeout int) string {
	h := `{"type": "command", "command": ` + strconv.Quote(command)
	if timeout > 0 {
		h += `, "timeout": ` + strconv.Itoa(timeout)
	}
	return `{` + strconv.Quote(event) + `: [{"matcher": ` + strconv.Quote(matcher) + `, "hooks": [` + h + `}]}]}`
}

// run runs `coder -p` (stream-json) against a model taking steps.
func (w *hookWorld) run(t *testing.T, sc llmtest.Scenario, args ...string) (result, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, sc)
	env := withProvider(t, w.env, srv)
	all := append([]string{"-p", "go", "--output-format", "stream-json"}, args...)
	return run{args: all, env: env, dir: w.ws}.exec(t), srv
}

// hookEvents are the stream's hook runs as "Event tool: outcome".
func hookEvents(t *testing.T, stdout string) []map[string]any {
	t.Helper()
	var out []map[string]any
	for _, e := range streamEvents(t, stdout) {
		if e["type"] == "hook" {
			out = append(out, e)
		}
	}
	return out
}

func mustExit0(t *testing.T, res result) {
	t.Helper()
	if res.code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", res.code, res.stdout, res.stderr)
	}
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// A PreToolUse hook that exits 2 stops a bash call before it runs; the
// model hears the hook's stderr as the call's result. Its matcher is
// Claude Code's "Bash", which names coder's bash; a "Read" group does not
// run for bash.
func TestHookPreToolUseExit2BlocksBash(t *testing.T) {
	w := newHookWorld(t)
	block := w.script(t, "block.sh", `cat >/dev/null; echo "no touching in this repo" >&2; exit 2`)
	wrong := w.script(t, "wrong.sh", `echo "read hook ran" >&2; exit 2`)
	w.userHooks(t, `{"PreToolUse": [
		{"matcher": "Read", "hooks": [{"type": "command", "command": `+strconv.Quote(wrong)+`}]},
		{"matcher": "Bash", "hooks": [{"type": "command", "command": `+strconv.Quote(block)+`}]}]}`)
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("touch touched.txt")), llmtest.Text("ok")}})
	mustExit0(t, res)
	if exists(w.ws, "touched.txt") {
		t.Error("the blocked command ran")
	}
	got := results(t, srv, 0)
	if len(got) != 1 || !strings.Contains(got[0], "no touching in this repo") || strings.Contains(got[0], "read hook ran") {
		t.Errorf("tool result the model got: %q", got)
	}
	hs := hookEvents(t, res.stdout)
	if len(hs) != 1 || hs[0]["event"] != "PreToolUse" || hs[0]["tool"] != "bash" || hs[0]["outcome"] != "blocked" {
		t.Errorf("hook events: %v", hs)
	}
}

// A JSON permissionDecision "deny" refuses the call with its reason; an
// "allow" of another call does not spare a dangerous command coder's own
// danger check.
func TestHookPermissionDecision(t *testing.T) {
	w := newHookWorld(t)
	decide := w.script(t, "decide.sh", `in=$(cat)
case "$in" in
*deny-me*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"the hook says no"}}' ;;
*) echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"allow"}}' ;;
esac`)
	w.userHooks(t, group("PreToolUse", "Bash", decide, 0))
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("echo deny-me > denied.txt")),
		llmtest.Calls(bashCall("echo fine > allowed.txt")),
		llmtest.Calls(bashCall("sudo rm -rf / --no-preserve-root")),
		llmtest.Text("ok")}})
	mustExit0(t, res)
	if exists(w.ws, "denied.txt") || !exists(w.ws, "allowed.txt") {
		t.Errorf("denied.txt exists %v, allowed.txt exists %v", exists(w.ws, "denied.txt"), exists(w.ws, "allowed.txt"))
	}
	if got := results(t, srv, 0); len(got) != 1 || !strings.Contains(got[0], "the hook says no") {
		t.Errorf("denied call's result: %q", got)
	}
	// Headless denies danger: the hook's allow must not change that.
	if got := results(t, srv, 2); len(got) != 1 || !strings.Contains(got[0], "denied") {
		t.Errorf("dangerous call's result: %q", got)
	}
	if a := approvals(t, res.stdout); len(a) != 1 || a[0] != "bash:denied" {
		t.Errorf("approvals: %v", a)
	}
}

// PostToolUse gets Claude Code's input: the call's tool_input and its
// tool_response, the session, the workspace (also as CLAUDE_PROJECT_DIR).
func TestHookPostToolUseReceivesInputAndResponse(t *testing.T) {
	w := newHookWorld(t)
	post := w.script(t, "post.sh", `cat > "$CODER_PROJECT_DIR/post.json"; echo "$CLAUDE_PROJECT_DIR" > "$CODER_PROJECT_DIR/dir.txt"`)
	w.userHooks(t, group("PostToolUse", "Bash", post, 0))
	res, _ := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("echo hello-from-bash")), llmtest.Text("ok")}})
	mustExit0(t, res)
	var in map[string]any
	if err := json.Unmarshal([]byte(readFile(t, w.ws, "post.json")), &in); err != nil {
		t.Fatal(err)
	}
	if in["hook_event_name"] != "PostToolUse" || in["tool_name"] != "bash" || in["cwd"] != w.ws ||
		in["session_id"] == "" || !strings.HasSuffix(in["transcript_path"].(string), ".json") {
		t.Errorf("input: %v", in)
	}
	if ti, _ := in["tool_input"].(map[string]any); ti["command"] != "echo hello-from-bash" {
		t.Errorf("tool_input: %v", in["tool_input"])
	}
	if tr, _ := in["tool_response"].(map[string]any); tr["stdout"] != "hello-from-bash\n" || tr["exit_code"] != 0.0 {
		t.Errorf("tool_response: %v", in["tool_response"])
	}
	if d := strings.TrimSpace(readFile(t, w.ws, "dir.txt")); d != w.ws {
		t.Errorf("CLAUDE_PROJECT_DIR = %q, want %q", d, w.ws)
	}
}

// A UserPromptSubmit hook's stdout reaches the model with the prompt; one
// that exits 2 refuses the prompt before any model call.
func TestHookUserPromptSubmit(t *testing.T) {
	w := newHookWorld(t)
	mark := marker()
	ctx := w.script(t, "ctx.sh", `cat >/dev/null; echo "the codeword is `+mark+`"`)
	w.userHooks(t, group("UserPromptSubmit", "", ctx, 0))
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	mustExit0(t, res)
	msgs := srv.Requests()[0].Messages()
	if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Text, "go") || !strings.Contains(last.Text, mark) {
		t.Errorf("the prompt the model got: %+v", last)
	}

	refuse := w.script(t, "refuse.sh", `grep -q '"prompt":"go"' && { echo "prompts may not say go" >&2; exit 2; }; exit 0`)
	w.userHooks(t, group("UserPromptSubmit", "", refuse, 0))
	res, srv = w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	if res.code == 0 || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d after %d model calls; want a refused prompt", res.code, len(srv.Requests()))
	}
	if !strings.Contains(res.stdout, "prompts may not say go") {
		t.Errorf("the refusal's reason is not shown: %s", res.stdout)
	}
}

// A Stop hook that exits 2 makes the model go on once with its stderr as
// the instruction; the second time it is told stop_hook_active and the
// turn ends whatever it says.
func TestHookStopContinuesOnce(t *testing.T) {
	w := newHookWorld(t)
	stop := w.script(t, "stop.sh", `cat >> "$CODER_PROJECT_DIR/stop.log"; echo >> "$CODER_PROJECT_DIR/stop.log"; echo "also run the linter" >&2; exit 2`)
	w.userHooks(t, group("Stop", "", stop, 0))
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("first answer"), llmtest.Text("second answer")}})
	mustExit0(t, res)
	reqs := srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls, want 2", len(reqs))
	}
	msgs := reqs[1].Messages()
	if last := msgs[len(msgs)-1]; last.Role != "user" || !strings.Contains(last.Text, "also run the linter") {
		t.Errorf("the model's second request ends with %+v", last)
	}
	lines := strings.Fields(readFile(t, w.ws, "stop.log"))
	if len(lines) != 2 || !strings.Contains(lines[0], `"stop_hook_active":false`) || !strings.Contains(lines[1], `"stop_hook_active":true`) {
		t.Errorf("stop hook inputs: %q", lines)
	}
	evs := streamEvents(t, res.stdout)
	if r := evs[len(evs)-1]; r["result"] != "second answer" {
		t.Errorf("result: %v", r)
	}
}

// A SessionStart hook runs at start-up with source "startup"; its stdout
// joins the first prompt.
func TestHookSessionStart(t *testing.T) {
	w := newHookWorld(t)
	mark := marker()
	start := w.script(t, "start.sh", `cat > "$CODER_PROJECT_DIR/start.json"; echo "project notes `+mark+`"`)
	w.userHooks(t, group("SessionStart", "", start, 0))
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	mustExit0(t, res)
	msgs := srv.Requests()[0].Messages()
	if last := msgs[len(msgs)-1]; !strings.Contains(last.Text, mark) {
		t.Errorf("the first prompt lacks the hook's context: %+v", last)
	}
	if in := readFile(t, w.ws, "start.json"); !strings.Contains(in, `"source":"startup"`) || !strings.Contains(in, `"hook_event_name":"SessionStart"`) {
		t.Errorf("input: %s", in)
	}
}

// A hook that hangs is killed at its timeout with everything it started;
// the turn goes on as if it had said nothing.
func TestHookTimeoutKillsHangingHook(t *testing.T) {
	w := newHookWorld(t)
	mark := marker()
	hang := w.script(t, "hang.sh", `sleep `+mark+` & sleep `+mark)
	w.userHooks(t, group("PreToolUse", "*", hang, 1))
	start := time.Now()
	res, srv := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(bashCall("echo went-on > after.txt")), llmtest.Text("ok")}})
	mustExit0(t, res)
	if took := time.Since(start); took > 25*time.Second {
		t.Errorf("the run took %s: the hook was not stopped at its timeout", took)
	}
	if !exists(w.ws, "after.txt") {
		t.Errorf("the call did not run after the hook timed out; results %q", results(t, srv, 0))
	}
	hs := hookEvents(t, res.stdout)
	if len(hs) != 1 || hs[0]["outcome"] != "timed out" {
		t.Errorf("hook events: %v", hs)
	}
	assertNoOrphans(t, mark)
}

// Hooks in a project's .claude/settings.json start programs: ignored, with
// the notice naming them, until the workspace is trusted.
func TestHookClaudeSettingsNeedTrust(t *testing.T) {
	w := newHookWorld(t)
	block := w.script(t, "block.sh", `cat >/dev/null; echo "claude project hook" >&2; exit 2`)
	writeFile(t, w.ws, ".claude/settings.json", `{"permissions": {"allow": []}, "hooks": `+group("PreToolUse", "Bash", block, 0)+`}`)
	steps := func() llmtest.Scenario {
		return llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(bashCall("echo ran >> ran.txt")), llmtest.Text("ok")}}
	}
	srv := llmtest.NewServer(t, steps())
	env := providerEnv(t, srv, "openai")
	env["HOME"], env["XDG_CONFIG_HOME"] = w.env["HOME"], w.env["XDG_CONFIG_HOME"]
	res := run{args: []string{"-p", "go"}, env: env, dir: w.ws}.exec(t)
	mustExit0(t, res)
	if !strings.Contains(res.stderr, "not trusted") || !strings.Contains(res.stderr, filepath.Join(".claude", "settings.json")+" (not trusted yet): hooks") {
		t.Errorf("no notice naming the ignored hooks: %s", res.stderr)
	}
	if readFile(t, w.ws, "ran.txt") != "ran\n" {
		t.Error("the call did not run in the untrusted workspace")
	}

	srv = llmtest.NewServer(t, steps())
	env = providerEnv(t, srv, "openai")
	env["HOME"], env["XDG_CONFIG_HOME"] = w.env["HOME"], w.env["XDG_CONFIG_HOME"]
	res = run{args: []string{"-p", "go", "--trust"}, env: env, dir: w.ws}.exec(t)
	mustExit0(t, res)
	if readFile(t, w.ws, "ran.txt") != "ran\n" {
		t.Error("the trusted project's hook did not block the call")
	}
	if got := results(t, srv, 0); len(got) != 1 || !strings.Contains(got[0], "claude project hook") {
		t.Errorf("result: %q", got)
	}
	if !strings.Contains(res.stderr, "[hook] PreToolUse bash: blocked — claude project hook") {
		t.Errorf("stderr does not show the hook: %s", res.stderr)
	}
}

// A hook that asks for the sandbox (hooks.sandbox) gets the very sandbox
// of the model's commands: it cannot write outside the workspace or read
// the person's keys.
func TestHookSandboxIsTheCommandsSandbox(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newHookWorld(t)
	outside := t.TempDir()
	writeFile(t, w.env["HOME"], ".ssh/id_ed25519", "SSH-KEY\n")
	probe := w.script(t, "probe.sh", `cat >/dev/null
echo x > `+strconv.Quote(filepath.Join(outside, "escaped"))+` 2>/dev/null && echo wrote-outside >> "$CODER_PROJECT_DIR/probe.txt"
cat "$HOME/.ssh/id_ed25519" >> "$CODER_PROJECT_DIR/probe.txt" 2>/dev/null
echo ran >> "$CODER_PROJECT_DIR/probe.txt"`)
	w.userHooks(t, `{"sandbox": true, "SessionStart": [{"hooks": [{"type": "command", "command": `+strconv.Quote(probe)+`}]}]}`)
	res, _ := w.run(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Text("ok")}})
	mustExit0(t, res)
	if got := readFile(t, w.ws, "probe.txt"); got != "ran\n" {
		t.Errorf("the hook got out of the sandbox: %q", got)
	}
	if exists(outside, "escaped") {
		t.Error("the hook wrote outside the workspace")
	}
}

// Line mode (the REPL's renderer without a terminal): /hooks lists the
// active hooks with the file each came from, and a turn shows its hook
// runs as [hook] lines.
func TestHookListAndLinesInTheREPL(t *testing.T) {
	w := newHookWorld(t)
	user := w.script(t, "user.sh", `cat >/dev/null; echo "formatted 2 files"`)
	project := w.script(t, "project.sh", `cat >/dev/null; echo "not in this repo" >&2; exit 2`)
	w.userHooks(t, group("PostToolUse", "", user, 0))
	writeFile(t, w.ws, ".claude/settings.local.json", `{"hooks": `+group("PreToolUse", "Write", project, 7)+`}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("write", `{"path":"x.txt","content":"x\n"}`), bashCall("echo hi")), llmtest.Text("ok")}})
	env := providerEnv(t, srv, "openai")
	env["HOME"], env["XDG_CONFIG_HOME"] = w.env["HOME"], w.env["XDG_CONFIG_HOME"]
	res := run{args: []string{"--trust"}, stdin: "/hooks\ngo\n", env: env, dir: w.ws}.exec(t)
	mustExit0(t, res)
	for _, want := range []string{
		"PreToolUse\n  [Write] " + project + "  (timeout 7s; " + filepath.Join(w.ws, ".claude", "settings.local.json") + ")",
		"PostToolUse\n  [*] " + user + "  (timeout 1m0s; " + filepath.Join(w.env["XDG_CONFIG_HOME"], "coder", "config.json") + ")",
		"[hook] PreToolUse write: blocked — not in this repo",
		"[hook] PostToolUse bash: ok\nformatted 2 files",
	} {
		if !strings.Contains(res.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, res.stdout)
		}
	}
	if exists(w.ws, "x.txt") {
		t.Error("the blocked write ran")
	}
}
