//go:build e2e

package e2e

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/sandbox"
)

// sandboxWorld is a workspace (a git repository with coder's and git's
// control files), a directory outside it and a fake home with a secret.
type sandboxWorld struct {
	ws, outside, home string
	env               map[string]string
}

func newSandboxWorld(t *testing.T) *sandboxWorld {
	t.Helper()
	w := &sandboxWorld{ws: planWorkspace(t), outside: t.TempDir(), env: baseEnv(t)}
	w.home = w.env["HOME"]
	writeFile(t, w.outside, "keep", "keep\n")
	writeFile(t, w.home, ".ssh/id_ed25519", "SSH-KEY-"+testKey+"\n")
	writeFile(t, w.home, ".bashrc", "# rc\n")
	writeFile(t, w.ws, ".coder/config.json", "{}\n")
	writeFile(t, w.ws, ".mcp.json", `{"mcpServers": {}}`+"\n")
	writeFile(t, w.ws, ".git/hooks/post-commit", "#!/bin/sh\n")
	// coder's key is in its environment, as in real use: it must not reach
	// any output (run.exec fails the test if it does).
	w.env["OPENAI_API_KEY"] = testKey
	// The person trusts this workspace, so its sandbox settings apply
	// (TestUntrustedSandboxSettingsIgnored covers the other case).
	writeFile(t, filepath.Join(w.env["XDG_CONFIG_HOME"], "coder"), "config.json",
		`{"trusted_workspaces": [`+strconv.Quote(w.ws)+`]}`)
	// Trust binds to content: the first run in a listed workspace records
	// its control files as they stand (a later change needs --trust).
	if res := (run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)); res.code != 0 {
		t.Fatalf("doctor: %+v", res)
	}
	return w
}

// An untrusted workspace cannot switch its own sandbox off or open the
// network: those settings widen what commands may do.
func TestUntrustedSandboxSettingsIgnored(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	if err := os.Remove(filepath.Join(w.env["XDG_CONFIG_HOME"], "coder", "config.json")); err != nil {
		t.Fatal(err)
	}
	writeConfig(t, w.ws, `{"sandbox": {"mode": "off", "network": "on", "writable_roots": [`+strconv.Quote(w.outside)+`]}}`)
	res := run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)
	if strings.Contains(res.stdout, "sandbox level: none") {
		t.Fatalf("an untrusted workspace switched the sandbox off:\n%s", res.stdout)
	}
	if res := w.sandbox(t, "touch "+w.outside+"/x"); res.code == 0 {
		t.Fatalf("an untrusted writable_roots widened the sandbox: %+v", res)
	}
	// Positive control: trusted for this run, the settings apply.
	res = run{args: []string{"doctor", "--trust"}, env: w.env, dir: w.ws}.exec(t)
	if !strings.Contains(res.stdout, "sandbox level: none") {
		t.Fatalf("--trust did not apply the workspace's settings:\n%s", res.stdout)
	}
}

func (w *sandboxWorld) sandbox(t *testing.T, script string, extra ...string) result {
	t.Helper()
	args := append([]string{"sandbox"}, extra...)
	return run{args: append(args, "--", "bash", "-c", script), env: w.env, dir: w.ws}.exec(t)
}

func needLevel(t *testing.T, l sandbox.Level) {
	t.Helper()
	if r := sandbox.Probe(); r.Level < l {
		t.Skipf("sandbox level %s unavailable here:\n%s", l, r)
	}
}

// attackClasses are the forms that got past the deny-list: each removes or
// overwrites {D}.
var attackClasses = map[string]string{
	"herestring":          `bash <<< 'rm -rf {D}'`,
	"heredoc":             "sh <<'EOF'\nrm -rf {D}\nEOF",
	"process subst.":      `source <(echo 'rm -rf {D}')`,
	"trap":                `trap 'rm -rf {D}' EXIT; true`,
	"BASH_ENV":            `echo 'rm -rf {D}' > "$TMPDIR/rc"; BASH_ENV="$TMPDIR/rc" bash -c true`,
	"--rcfile":            `echo 'rm -rf {D}' > "$TMPDIR/rc2"; bash --rcfile "$TMPDIR/rc2" -i </dev/null`,
	"PROMPT_COMMAND":      `PROMPT_COMMAND='rm -rf {D}' bash -i <<< 'true'`,
	"git alias":           `git -c alias.x='!rm -rf {D}' x`,
	"python":              `python3 -c 'import shutil; shutil.rmtree("{D}")'`,
	"perl":                `perl -e 'use File::Path; rmtree("{D}") or die'`,
	"node":                `node -e 'require("fs").rmSync("{D}", {recursive: true, force: true})'`,
	"make":                `printf 'x:\n\trm -rf {D}\n' > "$TMPDIR/mk"; make -s -f "$TMPDIR/mk" x`,
	"xargs":               `echo {D} | xargs -I{} sh -c 'rm -rf {}'`,
	"tar -C":              `echo x > "$TMPDIR/f"; tar -cf "$TMPDIR/t.tar" -C "$TMPDIR" f; tar -xf "$TMPDIR/t.tar" -C {D} && rm -f {D}/keep`,
	"sort -o, awk, sed w": `echo x | sort -o {D}/keep; awk 'BEGIN{print "x" > "{D}/keep"}'; echo x | sed -n 'w {D}/keep'`,
}

// attackTools are the programs an attack class needs besides bash.
var attackTools = map[string]string{"git alias": "git", "python": "python3", "perl": "perl", "node": "node", "make": "make"}

func needAttackTool(t *testing.T, class string) {
	t.Helper()
	if tool := attackTools[class]; tool != "" {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s is not installed", tool)
		}
	}
}

// TestSandboxCommandStopsEachAttackClass: through the built binary, each
// class of attack leaves the directory outside and the fake home as they
// were; the same command aimed inside the workspace works.
func TestSandboxCommandStopsEachAttackClass(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	for name, a := range attackClasses {
		t.Run(name, func(t *testing.T) {
			needAttackTool(t, name)
			outside, home := treeHash(t, w.outside), treeHash(t, w.home)
			for _, target := range []string{w.outside, w.home, "~"} {
				w.sandbox(t, strings.ReplaceAll(a, "{D}", target))
			}
			if treeHash(t, w.outside) != outside || treeHash(t, w.home) != home {
				t.Fatal("the attack changed a directory outside the workspace or the home")
			}
			inside := filepath.Join(w.ws, "target")
			writeFile(t, inside, "keep", "keep\n")
			res := w.sandbox(t, strings.ReplaceAll(a, "{D}", inside))
			if b, err := os.ReadFile(filepath.Join(inside, "keep")); err == nil && string(b) == "keep\n" {
				t.Fatalf("positive control: the attack did nothing inside the workspace: %+v", res)
			}
		})
	}
	// A symlink to the home, then rm -rf through it.
	before := treeHash(t, w.home)
	w.sandbox(t, `ln -s ~ hl && rm -rf hl/`)
	if treeHash(t, w.home) != before {
		t.Fatal("rm -rf through a symlink changed the home")
	}
}

// TestSandboxCommandHidesSecretsAndProtectsControlFiles: no ssh key and no
// API key in any output (run.exec checks every output for the key), git's
// and coder's control files unchanged, while git add + commit work.
func TestSandboxCommandHidesSecretsAndProtectsControlFiles(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	w := newSandboxWorld(t)
	res := w.sandbox(t, `cat ~/.ssh/id_*; ls ~/.ssh; for f in /proc/*/environ; do tr '\0' '\n' < "$f"; done; env`)
	if strings.Contains(res.stdout, "SSH-KEY") {
		t.Fatalf("the ssh key was read: %s", res.stdout)
	}
	if !strings.Contains(res.stdout, "HOME="+w.home) {
		t.Fatalf("positive control: the environment was not readable: %+v", res)
	}
	control := []string{".git/config", ".git/hooks/post-commit", ".coder/config.json", ".mcp.json"}
	before := fileHashes(t, w.ws, control)
	w.sandbox(t, `git config core.hooksPath /tmp; echo '{"sandbox":{"mode":"off"}}' > .coder/config.json; `+
		`echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json; echo evil > .git/hooks/pre-commit; rm -rf .git/hooks .coder`)
	if after := fileHashes(t, w.ws, control); after != before {
		t.Fatalf("a control file changed:\n%s\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("a hook was created")
	}
	res = w.sandbox(t, `echo new > b.txt && git add b.txt && git -c user.email=t@t -c user.name=t commit -qm sandboxed && git log --oneline | wc -l`)
	if res.code != 0 || strings.TrimSpace(res.stdout) != "2" {
		t.Fatalf("positive control: git add + commit: %+v", res)
	}
}

func fileHashes(t *testing.T, dir string, rels []string) string {
	t.Helper()
	var b strings.Builder
	for _, rel := range rels {
		data, err := os.ReadFile(filepath.Join(dir, rel))
		fmt.Fprintf(&b, "%s %q %v\n", rel, data, err)
	}
	return b.String()
}

// TestSandboxCommandContainsAndPassesExitCodes: the command's code comes
// back, and nothing it started survives it.
func TestSandboxCommandContainsAndPassesExitCodes(t *testing.T) {
	w := newSandboxWorld(t)
	for script, want := range map[string]int{"exit 7": 7, "kill -TERM $$": 143, "no-such-program": 127} {
		if res := w.sandbox(t, script); res.code != want {
			t.Errorf("%s: exit %d, want %d (%s)", script, res.code, want, res.stderr)
		}
	}
	if res := (run{args: []string{"sandbox"}, env: w.env, dir: w.ws}).exec(t); res.code != 125 || !strings.Contains(res.stderr, "no command") {
		t.Errorf("no command: %+v", res)
	}
	m := marker()
	w.sandbox(t, `sleep `+m+` & setsid sleep `+m+` & ( ( sleep `+m+` & ) & ) ; nohup sleep `+m+` >/dev/null 2>&1 & echo started`)
	if left := markerPIDs("sleep", m); len(left) > 0 {
		killMarked(m)
		t.Fatalf("%d process(es) outlived coder sandbox", len(left))
	}
}

// TestSandboxCommandNetwork: with the default network off a loopback server
// outside is unreachable; with sandbox.network "on" it answers.
func TestSandboxCommandNetwork(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "outside-answer") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	w := newSandboxWorld(t)
	fetch := `exec 3<>/dev/tcp/127.0.0.1/` + port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`
	if res := w.sandbox(t, fetch); strings.Contains(res.stdout, "outside-answer") {
		t.Fatalf("network off, yet the server answered: %+v", res)
	}
	writeConfig(t, w.ws, `{"sandbox": {"network": "on"}}`)
	if res := w.sandbox(t, fetch, "--trust"); !strings.Contains(res.stdout, "outside-answer") {
		t.Fatalf("positive control: network on, no answer: %+v", res)
	}
}

// TestSandboxCommandRunsGoTest: go test ./... on a small module works with
// the default writable caches.
func TestSandboxCommandRunsGoTest(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go")
	}
	w := newSandboxWorld(t)
	writeFile(t, w.ws, "go.mod", "module example.com/tiny\n\ngo 1.22\n")
	writeFile(t, w.ws, "tiny_test.go", "package tiny\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n")
	res := w.sandbox(t, gobin+" test -count=1 ./...")
	if res.code != 0 || !strings.Contains(res.stdout, "ok") {
		t.Fatalf("go test in the sandbox: %+v", res)
	}
}

// TestSandboxCommandPlanMode: with --mode plan the workspace is read-only.
func TestSandboxCommandPlanMode(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	before := treeHash(t, w.ws)
	res := w.sandbox(t, `touch new.txt; echo x >> a.txt; rm -f a.txt`, "--mode", "plan")
	if treeHash(t, w.ws) != before || !strings.Contains(res.stderr, "refused") {
		t.Fatalf("plan mode changed the workspace: %+v", res)
	}
	if res := w.sandbox(t, `echo ok > "$TMPDIR/x" && cat "$TMPDIR/x"`, "--mode", "plan"); res.stdout != "ok\n" {
		t.Fatalf("positive control: TMPDIR in plan mode: %+v", res)
	}
}

// TestSandboxCommandStartsInTheConfiguredMode: without --mode, coder
// sandbox judges by the mode the REPL would start in, whether it answers
// from its package's init (a preset named plan: a built-in agent) or
// leaves it to coder once initialised (a custom agent in plan mode, which
// only the agents' catalog knows); with nothing configured, build mode
// writes (the positive control). The configuration changes after the
// workspace was trusted, so each run passes --trust.
func TestSandboxCommandStartsInTheConfiguredMode(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	for name, project := range map[string]string{
		"preset plan":       `{"permission": {"preset": "plan"}}`,
		"custom plan agent": `{"agents": {"default": "reviewer", "definitions": [{"name": "reviewer", "mode": "plan"}]}}`,
		"nothing (build)":   `{}`,
	} {
		t.Run(name, func(t *testing.T) {
			w := newSandboxWorld(t)
			writeFile(t, w.ws, ".coder/config.json", project+"\n")
			res := w.sandbox(t, `touch new.txt`, "--trust")
			_, err := os.Stat(filepath.Join(w.ws, "new.txt"))
			if wrote := err == nil; wrote != (project == "{}") {
				t.Fatalf("wrote: %v, want %v: %+v", wrote, project == "{}", res)
			}
		})
	}
}

// TestSandboxCommandLeavesNoTempDir: the command's private TMPDIR, which it
// writes to, is gone when coder sandbox has exited, whatever the command's
// code.
func TestSandboxCommandLeavesNoTempDir(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	tmp := t.TempDir()
	w.env["TMPDIR"] = tmp
	for _, script := range []string{`echo x > "$TMPDIR/f" && cat "$TMPDIR/f"`, `echo x > "$TMPDIR/f"; exit 3`} {
		res := w.sandbox(t, script)
		if script[len(script)-1] == 'f' && res.stdout != "x\n" {
			t.Fatalf("positive control: the command could not use its TMPDIR: %+v", res)
		}
		if left, _ := filepath.Glob(filepath.Join(tmp, "coder-sandbox-*")); len(left) > 0 {
			t.Fatalf("%q left %q behind: %+v", script, left, res)
		}
	}
}

// TestSandboxCommandNamesTheRefusal: coder sandbox says what the sandbox
// refused, with the path when the command's message names one and without
// an empty one when it names a file by a bare name (touch's 'x').
func TestSandboxCommandNamesTheRefusal(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	w := newSandboxWorld(t)
	for script, want := range map[string]string{
		`touch x`:                 "the sandbox refused this (write);",
		`touch ` + w.ws + `/y.go`: "the sandbox refused this (write " + w.ws + "/y.go);",
	} {
		res := w.sandbox(t, script, "--mode", "plan")
		if res.code == 0 || !strings.Contains(res.stderr, want) {
			t.Errorf("%s in plan mode: want %q in stderr: %+v", script, want, res)
		}
	}
	if res := w.sandbox(t, `touch x`); res.code != 0 || strings.Contains(res.stderr, "refused") {
		t.Errorf("control: in build mode the write is the command's own: %+v", res)
	}
}

// TestDoctorAndFallbacks: coder doctor names the level and each layer;
// forced fallbacks are stated, still stop writes outside, and restore the
// protected paths; with no OS sandbox coder sandbox warns.
func TestDoctorAndFallbacks(t *testing.T) {
	w := newSandboxWorld(t)
	res := run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)
	if res.code != 0 || !strings.Contains(res.stdout, "sandbox level: "+sandbox.Probe().Level.String()) ||
		!strings.Contains(res.stdout, "network namespace") || !strings.Contains(res.stdout, "may write:") {
		t.Fatalf("doctor: %+v", res)
	}
	if sandbox.Probe().LandlockABI > 0 {
		w.env[sandbox.ForceLevelEnv] = "landlock"
		res = run{args: []string{"doctor"}, env: w.env, dir: w.ws}.exec(t)
		if !strings.Contains(res.stdout, "sandbox level: landlock") || !strings.Contains(res.stdout, "forced by") {
			t.Fatalf("doctor at a forced landlock level: %s", res.stdout)
		}
		before, cfg := treeHash(t, w.outside), fileHashes(t, w.ws, []string{".git/config"})
		res = w.sandbox(t, `touch `+w.outside+`/x; git config core.pager evil`)
		if treeHash(t, w.outside) != before || fileHashes(t, w.ws, []string{".git/config"}) != cfg ||
			!strings.Contains(res.stderr, "restored .git/config") || !strings.Contains(res.stderr, "Landlock only") {
			t.Fatalf("landlock fallback: %+v", res)
		}
	}
	// A failure that reads like a refusal is the sandbox's only where there
	// is one: said under the sandbox (the control), never without one.
	const denied = `echo "bash: /etc/passwd: Permission denied" >&2; exit 1`
	if res = w.sandbox(t, denied); sandbox.Probe().Level != sandbox.LevelNone && !strings.Contains(res.stderr, "the sandbox refused this") {
		t.Fatalf("control: a refusal under the sandbox is explained: %+v", res)
	}
	w.env[sandbox.ForceLevelEnv] = "none"
	res = w.sandbox(t, `echo ran`)
	if res.stdout != "ran\n" || !strings.Contains(res.stderr, "without an OS sandbox") {
		t.Fatalf("no sandbox must be stated: %+v", res)
	}
	if res = w.sandbox(t, denied); strings.Contains(res.stderr, "the sandbox refused") {
		t.Fatalf("without a sandbox, a failure was blamed on it: %+v", res)
	}
	delete(w.env, sandbox.ForceLevelEnv)
	writeConfig(t, w.ws, `{"sandbox": {"mode": "off"}}`)
	res = run{args: []string{"doctor", "--trust"}, env: w.env, dir: w.ws}.exec(t)
	if !strings.Contains(res.stdout, "sandbox level: none") || !strings.Contains(res.stdout, `sandbox.mode "off"`) {
		t.Fatalf("doctor with sandbox.mode off: %s", res.stdout)
	}
	writeConfig(t, w.ws, `{"sandbox": {"network": "maybe"}}`)
	res = w.sandbox(t, `true`, "--trust")
	if res.code != 125 || !strings.Contains(res.stderr, "sandbox.network") || !strings.Contains(res.stderr, ".coder/config.json") {
		t.Fatalf("a bad sandbox config: %+v", res)
	}
}

// TestDoctorWithoutUserNamespaces: where the kernel refuses user
// namespaces (simulated with a zero namespace limit), coder falls back to
// Landlock and says why.
func TestDoctorWithoutUserNamespaces(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	if _, err := exec.LookPath("unshare"); err != nil {
		t.Skip("no unshare")
	}
	w := newSandboxWorld(t)
	script := `echo 0 > /proc/sys/user/max_user_namespaces && exec "$0" doctor`
	cmd := exec.Command("unshare", "--user", "--map-root-user", "--mount", "--pid", "--fork", "--mount-proc", "sh", "-c", script, coderBin)
	cmd.Dir = w.ws
	for k, v := range w.env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Skipf("cannot simulate a kernel without user namespaces here: %v %s", err, out)
	}
	if !strings.Contains(string(out), "sandbox level: landlock") || !strings.Contains(string(out), "user namespaces are disabled") {
		t.Fatalf("doctor without user namespaces:\n%s", out)
	}
}
