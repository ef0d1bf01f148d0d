//go:build e2e

package e2e

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/llm/llmtest"
)

// Trust binds to content: what the person trusted is what their control
// files said then. Each test plants what a model (or anyone) could write
// after that, and shows it does not apply until the person confirms it,
// beside a control file they trusted that still applies.

// trustedWorld is a git workspace whose .coder/config.json allows danger
// without asking, listed in the person's trusted_workspaces: the first
// run there records the files as they stand.
type trustedWorld struct {
	ws  string
	env map[string]string
}

func newTrustedWorld(t *testing.T) *trustedWorld {
	t.Helper()
	w := &trustedWorld{ws: planWorkspace(t), env: baseEnv(t)}
	writeConfig(t, w.ws, `{"approval": {"allow_danger": true}}`)
	writeFile(t, filepath.Join(w.env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"trusted_workspaces": [`+strconv.Quote(w.ws)+`]}`)
	return w
}

// push runs one `git push --force` (danger: denied headless unless a
// trusted config allows danger) in dir and returns the run and its result.
func (w *trustedWorld) push(t *testing.T, dir string, args ...string) (result, string) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(bashCall("git push --force origin main")), llmtest.Text("done")}})
	res := run{args: append(args, "-p", "push"), env: withProvider(t, w.env, srv), dir: dir}.exec(t)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	return res, results(t, srv, 0)[0]
}

func allowed(r string) bool {
	return !strings.Contains(r, "denied") && strings.Contains(r, "exit_code")
}

// TestTrustAControlFileThatAppearsIsNotTrusted: after the person trusted
// the workspace, a .claude/settings.local.json with a hook appears; the
// next run ignores it, naming it, while the trusted config still applies;
// trusted for the run (--trust), the hook runs (the attack is real).
func TestTrustAControlFileThatAppearsIsNotTrusted(t *testing.T) {
	w := newTrustedWorld(t)
	if _, r := w.push(t, w.ws); !allowed(r) {
		t.Fatalf("positive control: the trusted allow_danger did not apply: %s", r)
	}
	mark := filepath.Join(w.ws, "hook-ran")
	writeFile(t, w.ws, ".claude/settings.local.json", `{"hooks": `+group("PreToolUse", "Bash", "touch "+mark, 0)+`}`)
	res, r := w.push(t, w.ws)
	if fileExists(mark) {
		t.Fatal("the planted hook ran in a trusted workspace")
	}
	if !strings.Contains(res.stderr, filepath.Join(".claude", "settings.local.json")+" (not trusted yet): hooks") {
		t.Fatalf("no notice naming the planted file: %s", res.stderr)
	}
	if !allowed(r) {
		t.Fatalf("positive control: the trusted config stopped applying: %s", r)
	}
	w.push(t, w.ws, "--trust")
	if !fileExists(mark) {
		t.Fatal("control: the hook did not run with --trust either, so the test proves nothing")
	}
}

// TestTrustAChangedControlFileIsNotTrusted: the trusted config is
// rewritten (sandbox off, and still allow_danger): none of it applies, and
// the notice says it changed since the person trusted it.
func TestTrustAChangedControlFileIsNotTrusted(t *testing.T) {
	w := newTrustedWorld(t)
	if _, r := w.push(t, w.ws); !allowed(r) {
		t.Fatalf("positive control: %s", r)
	}
	writeConfig(t, w.ws, `{"approval": {"allow_danger": true}, "sandbox": {"mode": "off"}}`)
	res, r := w.push(t, w.ws)
	if allowed(r) {
		t.Fatalf("a changed config kept its trust: %s", r)
	}
	if !strings.Contains(res.stderr, filepath.Join(".coder", "config.json")+" (changed since you trusted it)") {
		t.Fatalf("no notice naming the changed file: %s", res.stderr)
	}
	if d := (run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)); strings.Contains(d.stdout, "sandbox level: none") {
		t.Fatalf("the changed config switched the sandbox off:\n%s", d.stdout)
	}
}

// TestTrustDoesNotCoverASubdirectorysControlFiles: pkg/.coder/config.json
// (sandbox off, danger allowed) in a trusted workspace; a run started in
// pkg/ does not obey it; with --trust it does (positive control).
func TestTrustDoesNotCoverASubdirectorysControlFiles(t *testing.T) {
	w := newTrustedWorld(t)
	if _, r := w.push(t, w.ws); !allowed(r) {
		t.Fatalf("positive control: %s", r)
	}
	pkg := filepath.Join(w.ws, "pkg")
	writeConfig(t, pkg, `{"sandbox": {"mode": "off"}, "approval": {"allow_danger": true}}`)
	if _, r := w.push(t, pkg); allowed(r) {
		t.Fatalf("pkg/.coder/config.json applied under its trusted parent: %s", r)
	}
	if d := (run{args: []string{"doctor"}, env: w.env, dir: pkg}.exec(t)); strings.Contains(d.stdout, "sandbox level: none") {
		t.Fatalf("pkg's config switched the sandbox off:\n%s", d.stdout)
	}
	if d := (run{args: []string{"doctor", "--trust"}, env: w.env, dir: pkg}.exec(t)); !strings.Contains(d.stdout, "sandbox level: none") {
		t.Fatalf("control: --trust did not apply pkg's config:\n%s", d.stdout)
	}
}

// TestTrustREPLAsksAgainNamingTheChangedFile: the REPL asks once, naming
// the file and what it asks for; "y" is remembered (no question at the
// next start); once the file changes it asks again, saying it changed.
func TestTrustREPLAsksAgainNamingTheChangedFile(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"approval": {"allow_danger": true}}`)
	srv := llmtest.NewServer(t, llmtest.Scenario{Repeat: true, Steps: []llmtest.Step{llmtest.Text("ok")}})
	home := baseEnv(t)
	env := map[string]string{"HOME": home["HOME"], "XDG_CONFIG_HOME": home["XDG_CONFIG_HOME"]}

	s := launchTmux(t, 120, srv, dir, env)
	s.waitFor(filepath.Join(".coder", "config.json") + " (not trusted yet): approval.allow_danger (true)")
	answerTrust(s, "y")
	s.keys("C-d")
	s.waitFor("[exited 0]")

	s = startTmux(t, srv, dir, env)
	if scr := s.screen(); strings.Contains(scr, "(y/n)") {
		t.Fatalf("asked again about unchanged files:\n%s", scr)
	}
	s.keys("C-d")
	s.waitFor("[exited 0]")

	writeConfig(t, dir, `{"approval": {"allow_danger": true}, "sandbox": {"mode": "off"}}`)
	s = launchTmux(t, 120, srv, dir, env)
	s.waitFor(filepath.Join(".coder", "config.json") + " (changed since you trusted it): ")
	answerTrust(s, "n")
}

// TestTrustAlwaysKeepsATrustedConfigTrusted (issue 26 item 7, in a
// workspace whose config the person trusted): "always" adds to the
// trusted config; after a restart nothing is asked, and both the trusted
// setting and coder's own entry apply.
func TestTrustAlwaysKeepsATrustedConfigTrusted(t *testing.T) {
	dir := t.TempDir()
	writeConfig(t, dir, `{"fetch": {"allow_hosts": ["example.invalid"]}}`)
	touch := llmtest.Calls(llmtest.Call("bash", `{"command":"touch made.txt"}`))
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{touch, llmtest.Text("made it"), touch, llmtest.Text("made it after a restart")}})
	home := baseEnv(t)
	env := map[string]string{"HOME": home["HOME"], "XDG_CONFIG_HOME": home["XDG_CONFIG_HOME"]}

	s := launchTmux(t, 120, srv, dir, env)
	s.waitFor("(not trusted yet): fetch.allow_hosts")
	answerTrust(s, "y")
	s.typeText("make the file")
	s.keys("Enter")
	s.waitFor("Approve? (y/n/always)")
	s.typeText("always")
	s.keys("Enter")
	s.waitFor("made it")
	s.exitAfterTurn()
	if b, _ := os.ReadFile(filepath.Join(dir, ".coder", "config.json")); !strings.Contains(string(b), `"touch made.txt"`) || !strings.Contains(string(b), "example.invalid") {
		t.Fatalf("always not added to the trusted config:\n%s", b)
	}

	s = startTmux(t, srv, dir, env)
	if scr := s.screen(); strings.Contains(scr, "(y/n)") {
		t.Fatalf("asked to trust coder's own entry:\n%s", scr)
	}
	s.typeText("once more")
	s.keys("Enter")
	if scr := s.waitFor("made it after a restart"); strings.Contains(scr, "Approve?") {
		t.Fatalf("the remembered command was asked again:\n%s", scr)
	}
}

// answerTrust answers the start-up trust question and waits for the prompt.
func answerTrust(s *tmuxSession, answer string) {
	s.t.Helper()
	s.waitFor("Trust these files as they are now? (y/n)")
	s.typeText(answer)
	s.keys("Enter")
	s.waitFor("context: ")
}
