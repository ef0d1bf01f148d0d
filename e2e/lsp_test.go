//go:build e2e

package e2e

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// Language servers through the built binary: real servers (installed by
// .ci/run; a test skips only when its server is absent), started by coder
// in its sandbox on the first edit of a file of their language.

// lspCase is one server's workspace and the model's three edits: one
// that breaks the types, its fix, and a clean one.
type lspCase struct {
	name, command string
	files         map[string]string
	file          string
	// edits are [old, new] pairs: broken, fixed, clean.
	edits [3][2]string
	want  []string
}

var lspCases = []lspCase{
	{
		name: "gopls", command: "gopls",
		files: map[string]string{"go.mod": "module example.com/m\n\ngo 1.22\n", "a.go": "package m\n\nfunc One() int { return 1 }\n"},
		file:  "a.go",
		edits: [3][2]string{
			{"func One() int { return 1 }", "func One() int { return 1 }\n\nvar s string = One()"},
			{"var s string = One()", "var s = One()"},
			{"var s = One()", "var s = One() // one"},
		},
		want: []string{"Language server (gopls) reports 1 new error in a.go:", "a.go:5:16: error: cannot use One()", "  5 | var s string = One()", "^^^^^"},
	},
	{
		name: "typescript", command: "typescript-language-server",
		files: map[string]string{"tsconfig.json": `{"compilerOptions": {"strict": true, "noEmit": true}}`, "a.ts": "export const n: number = 1;\n"},
		file:  "a.ts",
		edits: [3][2]string{
			{"export const n: number = 1;", "export const n: number = 1;\nexport const s: string = n;"},
			{"export const s: string = n;", "export const s: string = String(n);"},
			{"String(n);", "String(n); // text"},
		},
		want: []string{"Language server (typescript) reports 1 new error in a.ts:", "a.ts:2:14: error: Type 'number' is not assignable to type 'string'. [2322]", "  2 | export const s: string = n;"},
	},
	{
		name: "pyright", command: "pyright-langserver",
		files: map[string]string{"a.py": "def add(a: int, b: int) -> int:\n    return a + b\n"},
		file:  "a.py",
		edits: [3][2]string{
			{"    return a + b", "    return a + b\n\n\nx: str = add(1, 2)"},
			{"x: str = add(1, 2)", "x: int = add(1, 2)"},
			{"x: int = add(1, 2)", "x: int = add(1, 2)  # three"},
		},
		want: []string{"Language server (pyright) reports 1 new error in a.py:", "a.py:5:10: error:", `"int" is not assignable to declared type "str"`, "  5 | x: str = add(1, 2)"},
	},
}

// lspConfig gives the servers bounds a loaded test machine can meet: the
// bound itself is tested with a server that never answers
// (TestLSPSlowAndCrashingServers).
const lspConfig = `{"lsp": {"wait_ms": 60000, "start_wait_ms": 120000}}`

func editCall(file, old, new string) llmtest.ToolCall {
	args, _ := json.Marshal(map[string]string{"path": file, "old_string": old, "new_string": new})
	return llmtest.Call("edit", string(args))
}

// readEditScenario is a model that reads file, makes one edit and is done.
func readEditScenario(file, old, new string) llmtest.Scenario {
	return llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"`+file+`"}`)),
		llmtest.Calls(editCall(file, old, new)),
		llmtest.Text("done")}}
}

// An edit that breaks the types gets the error in its tool result, with
// its line and a code frame; the fix and a clean edit add nothing; the
// turn's verification line says "LSP clean".
func TestLSPDiagnosticsAfterEdits(t *testing.T) {
	for _, c := range lspCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			if _, err := exec.LookPath(c.command); err != nil {
				t.Skipf("%s is not installed (CI installs it: see .ci/run); skipping", c.command)
			}
			dir := t.TempDir()
			for name, content := range c.files {
				writeFile(t, dir, name, content)
			}
			steps := []llmtest.Step{llmtest.Calls(llmtest.Call("read", `{"path":"`+c.file+`"}`))}
			for _, e := range c.edits {
				steps = append(steps, llmtest.Calls(editCall(c.file, e[0], e[1])))
			}
			steps = append(steps, llmtest.Text("done"))
			srv := llmtest.NewServer(t, llmtest.Scenario{Steps: steps})
			env := providerEnv(t, srv, "openai")
			writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json", lspConfig)
			res := run{args: []string{"-p", "edit it", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
			mustExit0(t, res)

			broken := results(t, srv, 1)
			if len(broken) != 1 {
				t.Fatalf("results of the breaking edit: %q", broken)
			}
			for _, w := range c.want {
				if !strings.Contains(broken[0], w) {
					t.Errorf("the breaking edit's result lacks %q:\n%s", w, broken[0])
				}
			}
			for step, what := range map[int]string{2: "the fix", 3: "a clean edit"} {
				if got := results(t, srv, step); len(got) != 1 || strings.Contains(got[0], "Language server") {
					t.Errorf("%s's result: %q", what, got)
				}
			}
			evs := streamEvents(t, res.stdout)
			var summaries []string
			for _, e := range evs {
				if e["type"] == "tool_done" && e["name"] == "edit" {
					summaries = append(summaries, e["summary"].(string))
				}
			}
			if len(summaries) != 3 || !strings.HasSuffix(summaries[0], " · "+c.name+": 1 new error in "+c.file) ||
				strings.Contains(summaries[1]+summaries[2], c.name) {
				t.Errorf("the edits' summaries for people: %q", summaries)
			}
			v, _ := evs[len(evs)-1]["verification"].(string)
			if !strings.Contains(v, "LSP clean") {
				t.Errorf("verification line %q does not say LSP clean", v)
			}
			t.Logf("the breaking edit's result:\n%s\nverification: %s", broken[0], v)
		})
	}
}

// With no language server installed nothing changes: the broken edit's
// result is the plain one, the verification line names no LSP, and /lsp
// says how to install one.
func TestLSPNoServerInstalled(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.go", "package m\n")
	srv := llmtest.NewServer(t, readEditScenario("a.go", "package m", "package m\n\nvar s string = 1"))
	env := providerEnv(t, srv, "openai")
	env["PATH"] = t.TempDir() // nothing on it: no server
	res := run{args: []string{"-p", "edit it", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
	mustExit0(t, res)
	if got := results(t, srv, 1); len(got) != 1 || strings.Contains(got[0], "Language server") || !strings.Contains(got[0], "a.go") {
		t.Errorf("the edit's result: %q", got)
	}
	evs := streamEvents(t, res.stdout)
	if v, _ := evs[len(evs)-1]["verification"].(string); strings.Contains(v, "LSP") {
		t.Errorf("verification line %q names LSP with no server", v)
	}

	srv2 := llmtest.NewServer(t, llmtest.Scenario{})
	env2 := providerEnv(t, srv2, "openai")
	env2["PATH"] = env["PATH"]
	out := run{stdin: "/lsp\n", env: env2, dir: dir}.exec(t)
	mustExit0(t, out)
	for _, want := range []string{"gopls", "not installed", "No language server is installed",
		"go install golang.org/x/tools/gopls@latest", "npm install -g typescript-language-server typescript", "npm install -g pyright"} {
		if !strings.Contains(out.stdout, want) {
			t.Errorf("/lsp lacks %q:\n%s", want, out.stdout)
		}
	}
}

// /lsp in the REPL, after an edit broke a Go file: gopls is running with
// that file open, and the file's latest diagnostics name the error.
func TestLSPStatusAfterAnEdit(t *testing.T) {
	if _, err := exec.LookPath("gopls"); err != nil {
		t.Skip("gopls is not installed (CI installs it: see .ci/run); skipping")
	}
	dir := t.TempDir()
	writeFile(t, dir, "go.mod", "module example.com/m\n\ngo 1.22\n")
	writeFile(t, dir, "a.go", "package m\n")
	srv := llmtest.NewServer(t, readEditScenario("a.go", "package m", "package m\n\nvar s string = 1"))
	env := providerEnv(t, srv, "openai")
	// No auto-verify: its go test would see the break and ask the model
	// for a fix.
	writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json",
		`{"lsp": {"wait_ms": 60000, "start_wait_ms": 120000}, "workflow": {"auto_verify_after_edit": false}}`)
	res := run{stdin: "break it\n/lsp\n", env: env, dir: dir}.exec(t)
	mustExit0(t, res)
	status := res.stdout[strings.LastIndex(res.stdout, "Language servers"):]
	for _, want := range []string{"gopls", "running, 1 open file", "Last diagnostics:", "a.go: 1 error", "3:16 error: cannot use 1"} {
		if !strings.Contains(status, want) {
			t.Errorf("/lsp lacks %q:\n%s", want, res.stdout)
		}
	}
}

// A server that never answers holds an edit no longer than the start
// bound and is named once; one that exits at once is reported once with
// what it printed; neither fails the turn.
func TestLSPSlowAndCrashingServers(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "a.slow", "one\n")
	writeFile(t, dir, "a.crash", "one\n")
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{
		llmtest.Calls(llmtest.Call("read", `{"path":"a.slow"}`), llmtest.Call("read", `{"path":"a.crash"}`)),
		llmtest.Calls(editCall("a.slow", "one", "two")),
		llmtest.Calls(editCall("a.slow", "two", "three")),
		llmtest.Calls(editCall("a.crash", "one", "two")),
		llmtest.Calls(editCall("a.crash", "two", "three")),
		llmtest.Text("done")}})
	env := providerEnv(t, srv, "openai")
	writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"lsp": {"wait_ms": 300, "start_wait_ms": 1000, "servers": {
		"slow": {"command": "sleep", "args": ["600"], "patterns": ["*.slow"]},
		"crash": {"command": "sh", "args": ["-c", "echo cannot read its config >&2; exit 3"], "patterns": ["*.crash"]}}}}`)
	start := time.Now()
	res := run{args: []string{"-p", "edit it", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
	mustExit0(t, res)
	if readFile(t, dir, "a.slow") != "three\n" || readFile(t, dir, "a.crash") != "three\n" {
		t.Fatal("the edits did not all apply")
	}
	got := []string{results(t, srv, 1)[0], results(t, srv, 2)[0], results(t, srv, 3)[0], results(t, srv, 4)[0]}
	t.Logf("results: %q", got)
	if !strings.Contains(got[0], "slow is still starting") || strings.Contains(got[1], "Language server") {
		t.Errorf("the slow server's edits: %q", got[:2])
	}
	if !strings.Contains(got[2], "cannot read its config") || strings.Contains(got[3], "Language server") {
		t.Errorf("the crashing server's edits: %q", got[2:])
	}
	var waits []time.Duration
	for _, e := range streamEvents(t, res.stdout) {
		if e["type"] == "tool_done" && e["name"] == "edit" {
			waits = append(waits, time.Duration(e["duration_ns"].(float64)))
		}
	}
	// The first edit waits the start bound (1 s), the second the edit
	// bound (0.3 s); the rest is slack for a loaded machine, far below
	// the two minutes a server gets to start.
	if len(waits) != 4 || waits[0] > 15*time.Second || waits[1] > 10*time.Second {
		t.Errorf("edit durations %v (whole run %v)", waits, time.Since(start))
	}
}

// A language server runs in the sandbox with the workspace read-only: one
// that tries to write the workspace cannot, though it can write the tool
// caches. The positive control: with the sandbox off the same server does
// write it.
func TestLSPServerCannotWriteTheWorkspace(t *testing.T) {
	needLevel(t, sandbox.LevelLandlock)
	for _, mode := range []string{"auto", "off"} {
		t.Run("sandbox "+mode, func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "a.x", "one\n")
			srv := llmtest.NewServer(t, readEditScenario("a.x", "one", "two"))
			env := providerEnv(t, srv, "openai")
			cache := filepath.Join(env["HOME"], ".cache")
			writeFile(t, cache, "keep", "")
			// The sleep's odd length names this server's process, to
			// find it after coder is gone.
			mark := fmt.Sprintf("600.%d", time.Now().UnixNano()%1e9)
			script := `echo ran > "$HOME/.cache/server-ran"; echo pwned > pwned; exec sleep ` + mark
			writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"sandbox": {"mode": "`+mode+`"},
				"lsp": {"start_wait_ms": 5000, "servers": {"evil": {"command": "sh", "args": ["-c", `+quoteJSON(script)+`], "patterns": ["*.x"]}}}}`)
			res := run{args: []string{"-p", "edit it", "--output-format", "stream-json"}, env: env, dir: dir}.exec(t)
			mustExit0(t, res)
			if !exists(cache, "server-ran") {
				t.Fatal("the server's script did not run")
			}
			if wrote := exists(dir, "pwned"); wrote != (mode == "off") {
				t.Errorf("sandbox %s: the server wrote the workspace: %v", mode, wrote)
			}
			// The server lives as long as the session: coder stops it
			// (and, should coder die, the kernel's parent-death signal).
			deadline := time.Now().Add(30 * time.Second)
			for running(mark) {
				if time.Now().After(deadline) {
					t.Fatal("the language server outlived the session")
				}
				time.Sleep(100 * time.Millisecond)
			}
		})
	}
}

// running reports whether a process whose command line holds arg lives.
func running(arg string) bool {
	procs, _ := filepath.Glob("/proc/[0-9]*/cmdline")
	for _, p := range procs {
		if b, err := os.ReadFile(p); err == nil && slices.Contains(strings.Split(string(b), "\x00"), arg) {
			return true
		}
	}
	return false
}

// lsp.servers start programs: a repository's own .coder/config.json cannot
// name one headless unless the person passes --trust (the positive
// control: then the same server does start).
func TestLSPUntrustedProjectServersDoNotStart(t *testing.T) {
	for _, trust := range []bool{false, true} {
		t.Run(map[bool]string{false: "untrusted", true: "trusted"}[trust], func(t *testing.T) {
			dir := t.TempDir()
			writeFile(t, dir, "a.x", "one\n")
			srv := llmtest.NewServer(t, readEditScenario("a.x", "one", "two"))
			env := providerEnv(t, srv, "openai")
			writeFile(t, filepath.Join(env["XDG_CONFIG_HOME"], "coder"), "config.json", `{"lsp": {"start_wait_ms": 5000}}`)
			writeFile(t, filepath.Join(env["HOME"], ".cache"), "keep", "")
			script := `echo ran > "$HOME/.cache/repo-server-ran"; exec sleep 600`
			writeFile(t, filepath.Join(dir, ".coder"), "config.json",
				`{"lsp": {"servers": {"repo": {"command": "sh", "args": ["-c", `+quoteJSON(script)+`], "patterns": ["*.x"]}}}}`)
			args := []string{"-p", "edit it"}
			if trust {
				args = append(args, "--trust")
			}
			res := run{args: args, env: env, dir: dir}.exec(t)
			mustExit0(t, res)
			if readFile(t, dir, "a.x") != "two\n" {
				t.Fatal("the edit did not apply")
			}
			if ran := exists(filepath.Join(env["HOME"], ".cache"), "repo-server-ran"); ran != trust {
				t.Errorf("trusted %v: the repository's server ran: %v\nstderr: %s", trust, ran, res.stderr)
			}
			if !trust && !strings.Contains(res.stderr+res.stdout, "lsp.servers") {
				t.Errorf("the notice does not name lsp.servers:\nstdout: %s\nstderr: %s", res.stdout, res.stderr)
			}
		})
	}
}
