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
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// These tests drive the sandbox as a model would: bash calls made through
// `coder -p` in build mode with the default preset. Danger is approved by
// the person's config, so the deny-list asks nothing and only the OS
// boundary stands between a command and what is outside the workspace.

func bashCall(cmd string) llmtest.ToolCall {
	return llmtest.Call("bash", fmt.Sprintf(`{"command":%q}`, cmd))
}

// allowDanger rewrites the person's config: the workspace trusted and
// danger approved without asking, plus extra settings (JSON members).
func (w *sandboxWorld) allowDanger(t *testing.T, extra string) {
	t.Helper()
	cfg := `{"trusted_workspaces": [` + strconv.Quote(w.ws) + `], "approval": {"allow_danger": true}` + extra + `}`
	writeFile(t, filepath.Join(w.env["XDG_CONFIG_HOME"], "coder"), "config.json", cfg)
}

// headless runs `coder -p` in the workspace against a model that takes
// the given steps, and returns the run and the model's server.
func (w *sandboxWorld) headless(t *testing.T, steps ...llmtest.Step) (result, *llmtest.Server) {
	t.Helper()
	res, srv := w.headlessArgs(t, nil, steps...)
	if res.code != 0 {
		t.Fatalf("exit %d: %s", res.code, res.stderr)
	}
	return res, srv
}

// headlessArgs is headless with extra flags (--trust), whatever the exit.
func (w *sandboxWorld) headlessArgs(t *testing.T, args []string, steps ...llmtest.Step) (result, *llmtest.Server) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: append(steps, llmtest.Text("done"))})
	env := withProvider(t, w.env, srv)
	return run{args: append(args, "-p", "go"), env: env, dir: w.ws}.exec(t), srv
}

// results are the tool results the model received after step i (0-based).
func results(t *testing.T, srv *llmtest.Server, step int) []string {
	t.Helper()
	reqs := srv.Requests()
	if len(reqs) <= step+1 {
		t.Fatalf("the model was called %d times", len(reqs))
	}
	var out []string
	for _, m := range lastToolResults(reqs[step+1]) {
		out = append(out, m.Text)
	}
	return out
}

// TestHeadlessSandboxStopsEachAttackClass: every attack class, aimed at a
// directory outside, the home and ~, leaves them as they were; the same
// attacks aimed inside the workspace work (positive control).
func TestHeadlessSandboxStopsEachAttackClass(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	var attacks, controls []llmtest.ToolCall
	var insides []string
	for name, a := range attackClasses {
		if tool := attackTools[name]; tool != "" {
			if _, err := exec.LookPath(tool); err != nil {
				continue
			}
		}
		for _, target := range []string{w.outside, w.home, "~"} {
			attacks = append(attacks, bashCall(strings.ReplaceAll(a, "{D}", target)))
		}
		inside := filepath.Join(w.ws, fmt.Sprintf("target%d", len(insides)))
		writeFile(t, inside, "keep", "keep\n")
		insides = append(insides, name+"\x00"+inside)
		controls = append(controls, bashCall(strings.ReplaceAll(a, "{D}", inside)))
	}
	attacks = append(attacks, bashCall(`ln -s ~ hl && rm -rf hl/`))
	outside, home := treeHash(t, w.outside), treeHash(t, w.home)
	_, srv := w.headless(t, llmtest.Calls(attacks...), llmtest.Calls(controls...))
	if treeHash(t, w.outside) != outside || treeHash(t, w.home) != home {
		t.Fatalf("an attack changed the directory outside or the home; results:\n%s", strings.Join(results(t, srv, 0), "\n"))
	}
	for _, ni := range insides {
		name, inside, _ := strings.Cut(ni, "\x00")
		if b, err := os.ReadFile(filepath.Join(inside, "keep")); err == nil && string(b) == "keep\n" {
			t.Errorf("positive control %s: the attack did nothing inside the workspace", name)
		}
	}
	if got := len(results(t, srv, 0)); got != len(attacks) {
		t.Fatalf("%d results for %d calls", got, len(attacks))
	}
}

// TestHeadlessSandboxSecretsControlFilesContainment: no ssh key or API key
// reaches the model, git's and coder's control files stay as they were
// while git add + commit work, and nothing a call started in the
// background is alive when the next request arrives.
func TestHeadlessSandboxSecretsControlFilesContainment(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	control := []string{".git/config", ".git/hooks/post-commit", ".coder/config.json", ".mcp.json"}
	before := fileHashes(t, w.ws, control)
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	_, srv := w.headless(t,
		llmtest.Calls(
			bashCall(`cat ~/.ssh/id_*; ls ~/.ssh; for f in /proc/*/environ; do tr '\0' '\n' < "$f"; done; env`),
			bashCall(`git config core.hooksPath /tmp; echo '{"sandbox":{"mode":"off"}}' > .coder/config.json; `+
				`echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json; echo evil > .git/hooks/pre-commit; rm -rf .git/hooks`),
			bashCall(`echo new > b.txt && git add b.txt && git -c user.email=t@t -c user.name=t commit -qm sandboxed && git log --oneline | wc -l`),
			bashCall(`sleep `+m+` & setsid sleep `+m+` & ( ( sleep `+m+` & ) & ) ; nohup sleep `+m+` >/dev/null 2>&1 & echo started`),
		),
		llmtest.Step{Text: "checked", Check: func(llmtest.Request) error {
			if left := markerPIDs("sleep", m); len(left) > 0 {
				return fmt.Errorf("%d process(es) outlived their bash call", len(left))
			}
			return nil
		}},
	)
	rs := results(t, srv, 0)
	all := strings.Join(rs, "\n")
	if strings.Contains(all, "SSH-KEY") || strings.Contains(all, testKey) {
		t.Fatalf("a secret reached the model:\n%s", all)
	}
	if !strings.Contains(rs[0], "HOME="+w.home) {
		t.Fatalf("positive control: the environment was not readable: %s", rs[0])
	}
	if after := fileHashes(t, w.ws, control); after != before {
		t.Fatalf("a control file changed:\n%s\n%s", before, after)
	}
	if _, err := os.Stat(filepath.Join(w.ws, ".git/hooks/pre-commit")); err == nil {
		t.Fatal("a hook was created")
	}
	if !strings.Contains(rs[2], `"stdout":"2\n"`) {
		t.Fatalf("positive control: git add + commit: %s", rs[2])
	}
}

// TestHeadlessKeptSandboxLeavesNothingBetweenCalls: at every level, a
// session's calls run in one sandbox kept set up from the first (the
// command's parent is then the serving helper, serve=1 on its command
// line: the positive control that this path ran, for both calls); what a
// call starts in the background, setsid and nohup included, is gone
// before the model is asked again, from outside and from the next call,
// though it ran while its call did; and the kept sandbox's rules are the
// level's (nothing written outside from Landlock up, no secret read at
// the full level).
func TestHeadlessKeptSandboxLeavesNothingBetweenCalls(t *testing.T) {
	for _, level := range []sandbox.Level{sandbox.LevelFull, sandbox.LevelLandlock, sandbox.LevelNone} {
		t.Run(level.String(), func(t *testing.T) {
			needLevel(t, level)
			w := newSandboxWorld(t)
			w.allowDanger(t, "")
			if level != sandbox.LevelFull {
				w.env[sandbox.ForceLevelEnv] = level.String()
			}
			m := marker()
			t.Cleanup(func() { killMarked(m) })
			call := func(cmd string) llmtest.Step { return llmtest.Calls(bashCall(cmd)) }
			served := `echo served $(tr '\0' '\n' < /proc/$PPID/cmdline | grep -cx serve=1)`
			leave := call(`setsid sh -c 'echo $$ > left.pid; exec sleep ` + m + `' & nohup sleep ` + m + ` >/dev/null 2>&1 & ` +
				`( ( sleep ` + m + ` & ) & ) ; sleep 0.3; kill -0 $(cat left.pid) && echo alive; ` + served)
			check := call(`if kill -0 $(cat left.pid) 2>/dev/null; then echo still-there; else echo gone; fi; ` + served + `; ` +
				`echo x >> ` + filepath.Join(w.outside, "keep") + `; cat ~/.ssh/id_* ; true`)
			check.Check = func(llmtest.Request) error {
				if left := markerPIDs("sleep", m); len(left) > 0 {
					return fmt.Errorf("%d process(es) outlived their bash call", len(left))
				}
				return nil
			}
			outside := treeHash(t, w.outside)
			_, srv := w.headless(t, leave, check)
			for _, step := range []int{0, 1} {
				if r := results(t, srv, step)[0]; !strings.Contains(r, `served 1\n`) {
					t.Fatalf("positive control: call %d did not run in the kept sandbox: %s", step+1, r)
				}
			}
			if r := results(t, srv, 0)[0]; !strings.Contains(r, "alive") {
				t.Fatalf("positive control: the background process was not running in its call: %s", r)
			}
			r := results(t, srv, 1)[0]
			if !strings.Contains(r, "gone") {
				t.Fatalf("the next call found the last one's process: %s", r)
			}
			if level != sandbox.LevelNone && treeHash(t, w.outside) != outside {
				t.Fatalf("the kept sandbox let a file outside be written: %s", r)
			}
			if level == sandbox.LevelFull && strings.Contains(r, "SSH-KEY") {
				t.Fatalf("the kept sandbox let a secret be read: %s", r)
			}
		})
	}
}

// TestHeadlessSandboxNetwork: with the network off a loopback server
// outside is unreachable; with sandbox.network "on" it answers.
func TestHeadlessSandboxNetwork(t *testing.T) {
	needLevel(t, sandbox.LevelFull)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, "outside-answer") }))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	fetch := bashCall(`exec 3<>/dev/tcp/127.0.0.1/` + port + ` && printf 'GET / HTTP/1.0\r\n\r\n' >&3 && cat <&3`)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	if _, model := w.headless(t, llmtest.Calls(fetch)); strings.Contains(results(t, model, 0)[0], "outside-answer") {
		t.Fatal("network off, yet the server answered")
	}
	w.allowDanger(t, `, "sandbox": {"network": "on"}`)
	if _, model := w.headless(t, llmtest.Calls(fetch)); !strings.Contains(results(t, model, 0)[0], "outside-answer") {
		t.Fatalf("positive control: network on, no answer: %s", results(t, model, 0)[0])
	}
}

// TestHeadlessSandboxTaskAndGoTest: a background task is started, read and
// killed (and is gone after), and go test ./... runs on a small module.
func TestHeadlessSandboxTaskAndGoTest(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go")
	}
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	writeFile(t, w.ws, "go.mod", "module example.com/tiny\n\ngo 1.22\n")
	writeFile(t, w.ws, "tiny_test.go", "package tiny\n\nimport \"testing\"\n\nfunc TestOK(t *testing.T) {}\n")
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	task := llmtest.Call("bash", fmt.Sprintf(`{"command":%q,"background":true}`,
		`echo task-says-hi; touch "$TMPDIR/ready"; sleep `+m))
	_, srv := w.headless(t,
		llmtest.Calls(task),
		llmtest.Calls(bashCall(`until [ -e "$TMPDIR/ready" ]; do sleep 0.05; done`), bashCall(gobin+" test -count=1 ./...")),
		llmtest.Calls(llmtest.Call("bash_output", `{"task_id":"task-1"}`)),
		llmtest.Step{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash_kill", `{"task_id":"task-1"}`)},
			Check: func(llmtest.Request) error {
				if len(markerPIDs("sleep", m)) == 0 {
					return fmt.Errorf("the background task is not running before bash_kill")
				}
				return nil
			}},
		llmtest.Step{Text: "killed", Check: func(llmtest.Request) error {
			if left := markerPIDs("sleep", m); len(left) > 0 {
				return fmt.Errorf("the task outlived bash_kill: %v", left)
			}
			return nil
		}},
	)
	if r := results(t, srv, 0)[0]; !strings.Contains(r, `"task_id":"task-1"`) {
		t.Fatalf("start: %s", r)
	}
	if r := results(t, srv, 1)[1]; !strings.Contains(r, `"ok":true`) || !strings.Contains(r, "ok ") {
		t.Fatalf("go test in the sandbox: %s", r)
	}
	if r := results(t, srv, 2)[0]; !strings.Contains(r, "task-says-hi") || !strings.Contains(r, `"status":"running"`) {
		t.Fatalf("bash_output: %s", r)
	}
	if r := results(t, srv, 3)[0]; !strings.Contains(r, `"status":"exited"`) {
		t.Fatalf("bash_kill: %s", r)
	}
}

// TestHeadlessSandboxRefusalNeverEscalates: a write outside the workspace
// is refused, the model is told it was the sandbox, and an unattended run
// never re-runs it outside.
func TestHeadlessSandboxRefusalNeverEscalates(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	before := treeHash(t, w.outside)
	_, srv := w.headless(t, llmtest.Calls(bashCall("touch "+w.outside+"/planted")))
	r := results(t, srv, 0)[0]
	if treeHash(t, w.outside) != before {
		t.Fatal("the write outside went through")
	}
	if !strings.Contains(r, "sandbox") || !strings.Contains(r, "Nobody can approve running it outside the sandbox") {
		t.Fatalf("the model was not told why: %s", r)
	}
}

// TestHeadlessSandboxFallbacks: forced down to Landlock, writes outside are
// still stopped and a changed control file is put back, with the model
// told; with no OS sandbox coder says so on stderr at start.
func TestHeadlessSandboxFallbacks(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	w.env[sandbox.ForceLevelEnv] = "landlock"
	before, cfg := treeHash(t, w.outside), fileHashes(t, w.ws, []string{".git/config"})
	res, srv := w.headless(t, llmtest.Calls(bashCall(`touch `+w.outside+`/x; git config core.pager evil`)))
	r := results(t, srv, 0)[0]
	if treeHash(t, w.outside) != before || fileHashes(t, w.ws, []string{".git/config"}) != cfg {
		t.Fatalf("landlock fallback let a change through: %s", r)
	}
	if !strings.Contains(r, "restored .git/config (changed while a command ran") || !strings.Contains(res.stderr, "Landlock only") {
		t.Fatalf("the fallback was not stated: %s\nstderr: %s", r, res.stderr)
	}
	// With no OS sandbox the protected paths are still put back (doctor
	// says so at every level).
	w.env[sandbox.ForceLevelEnv] = "none"
	res, srv = w.headless(t, llmtest.Calls(bashCall(`echo ran; git config core.pager evil`)))
	r = results(t, srv, 0)[0]
	if !strings.Contains(res.stderr, "without an OS sandbox") || !strings.Contains(r, "ran") {
		t.Fatalf("no sandbox must be stated: %s", res.stderr)
	}
	if fileHashes(t, w.ws, []string{".git/config"}) != cfg || !strings.Contains(r, "restored .git/config (changed while a command ran") {
		t.Fatalf("with no OS sandbox a changed control file stayed changed: %s", r)
	}
}

// TestHeadlessTaskToldWhatWasPutBack: a background task that changes a
// protected file has it put back, and the model is told so when it reads
// the ended task, as a foreground call's result tells it. (Landlock level:
// with namespaces the file is bound read-only and the write fails.)
func TestHeadlessTaskToldWhatWasPutBack(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	w.env[sandbox.ForceLevelEnv] = "landlock"
	cfg := fileHashes(t, w.ws, []string{".git/config"})
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	task := llmtest.Call("bash", fmt.Sprintf(`{"command":%q,"background":true}`, `git config core.pager evil; sleep `+m))
	_, srv := w.headless(t,
		llmtest.Calls(task),
		// No other command runs meanwhile: the task itself ends the guard.
		llmtest.Step{ToolCalls: []llmtest.ToolCall{llmtest.Call("bash_kill", `{"task_id":"task-1"}`)},
			Check: func(llmtest.Request) error {
				for deadline := time.Now().Add(20 * time.Second); fileHashes(t, w.ws, []string{".git/config"}) == cfg; {
					if time.Now().After(deadline) {
						return fmt.Errorf("the task never changed .git/config")
					}
					time.Sleep(20 * time.Millisecond)
				}
				return nil
			}},
	)
	r := results(t, srv, 1)[0]
	if !strings.Contains(r, `"status":"exited"`) || !strings.Contains(r, "restored .git/config (changed while a command ran") {
		t.Fatalf("bash_kill: %s", r)
	}
	if fileHashes(t, w.ws, []string{".git/config"}) != cfg {
		t.Fatal(".git/config stayed changed")
	}
}
