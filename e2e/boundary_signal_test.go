//go:build e2e

package e2e

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/llm/llmtest"
	"github.com/coder-agent/coder/internal/sandbox"
)

// A background task plants control files and sleeps; coder then ends
// without an orderly exit: the terminal closes (SIGHUP), it is told to
// stop (SIGTERM, SIGQUIT) or killed (SIGKILL). What the task planted must
// not outlive coder: put back as coder ends, or, after SIGKILL, at the
// next start (the journal) — leaving what the person changed after.

// plantAndWait is the task: a new .mcp.json in a sub-directory (moved
// aside at every level) and an fsmonitor in .git/config (put back below
// level full; refused at full), then a sign it is done, then sleep.
func plantAndWait(m string) llmtest.ToolCall {
	return llmtest.Call("bash", fmt.Sprintf(`{"command":%q,"background":true}`,
		`echo '{"mcpServers":{"x":{"command":"evil"}}}' > pkg/.mcp.json; git config core.fsmonitor "$PWD/evil"; `+
			`touch "$TMPDIR/planted"; sleep `+m))
}

// startCoder starts coder -p with the model's steps and returns it
// running, and a function that waits for its end.
func startCoder(t *testing.T, w *sandboxWorld, steps ...llmtest.Step) (*exec.Cmd, func() (string, int)) {
	t.Helper()
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: append(steps, llmtest.Text("done"))})
	env := withProvider(t, w.env, srv)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	cmd := exec.CommandContext(ctx, coderBin, "-p", "go")
	cmd.Dir = w.ws
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, func() (string, int) {
		defer cancel()
		_ = cmd.Wait()
		return stderr.String(), cmd.ProcessState.ExitCode()
	}
}

// signalWhenPlanted is the model's second step: once the task has
// planted, coder gets sig while a call runs.
func signalWhenPlanted(t *testing.T, w *sandboxWorld, cmd **exec.Cmd, sig syscall.Signal) llmtest.Step {
	return llmtest.Step{ToolCalls: []llmtest.ToolCall{bashCall("sleep 60")}, Check: func(llmtest.Request) error {
		deadline := time.Now().Add(30 * time.Second)
		for !planted(w) {
			if time.Now().After(deadline) {
				return fmt.Errorf("the task never planted")
			}
			time.Sleep(20 * time.Millisecond)
		}
		go func() {
			time.Sleep(300 * time.Millisecond) // the sleep call has started
			_ = (*cmd).Process.Signal(sig)
		}()
		return nil
	}}
}

func planted(w *sandboxWorld) bool {
	_, err := os.Stat(filepath.Join(w.ws, "pkg/.mcp.json"))
	return err == nil
}

func signalWorld(t *testing.T, level sandbox.Level) *sandboxWorld {
	t.Helper()
	w := newSandboxWorld(t)
	w.allowDanger(t, "")
	writeFile(t, w.ws, "pkg/main.go", "package main\n")
	w.atLevel(level)
	return w
}

// TestRestoreOnSignals: SIGHUP, SIGTERM and SIGQUIT each end coder in
// order: the task is stopped and what it planted is gone, at each level.
func TestRestoreOnSignals(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelLandlock)
	for _, level := range boundaryLevels() {
		for _, sig := range []syscall.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT} {
			t.Run(level.String()+"/"+sig.String(), func(t *testing.T) {
				w := signalWorld(t, level)
				cfg := fileHashes(t, w.ws, []string{".git/config"})
				m := marker()
				t.Cleanup(func() { killMarked(m) })
				var cmd *exec.Cmd
				c, wait := startCoder(t, w, llmtest.Calls(plantAndWait(m)), signalWhenPlanted(t, w, &cmd, sig))
				cmd = c
				stderr, code := wait()
				if code == 0 {
					t.Fatalf("coder was not stopped by %s: %s", sig, stderr)
				}
				if planted(w) || fileHashes(t, w.ws, []string{".git/config"}) != cfg {
					t.Fatalf("what the task planted outlived coder (%s):\n%s", sig, stderr)
				}
				if left := markerPIDs("sleep", m); len(left) > 0 {
					t.Fatalf("the task outlived coder: %v", left)
				}
				if j, _ := os.ReadDir(filepath.Join(w.home, ".config/coder/sandbox-journal")); len(j) > 0 {
					t.Fatalf("a journal was left after an orderly end: %v", j)
				}
			})
		}
	}
}

// TestSandboxCommandRestoresOnSignals: `coder sandbox`, which answers from
// its package's init and takes the signals there, ends in order on each
// of them too: the command is stopped and the .mcp.json it planted is
// gone, with no journal left (as an end by SIGKILL would leave).
func TestSandboxCommandRestoresOnSignals(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelLandlock)
	for _, sig := range []syscall.Signal{syscall.SIGINT, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT} {
		t.Run(sig.String(), func(t *testing.T) {
			w := signalWorld(t, sandbox.Probe().Level)
			m := marker()
			t.Cleanup(func() { killMarked(m) })
			cmd := exec.Command(coderBin, "sandbox", "--", "sh", "-c",
				`echo '{"mcpServers":{"x":{"command":"evil"}}}' > pkg/.mcp.json; sleep `+m)
			cmd.Dir = w.ws
			for k, v := range w.env {
				cmd.Env = append(cmd.Env, k+"="+v)
			}
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			deadline := time.Now().Add(30 * time.Second)
			for !planted(w) || len(markerPIDs("sleep", m)) == 0 {
				if time.Now().After(deadline) {
					_ = cmd.Process.Kill()
					t.Fatalf("the command never planted: %s", stderr.String())
				}
				time.Sleep(20 * time.Millisecond)
			}
			_ = cmd.Process.Signal(sig)
			_ = cmd.Wait()
			if planted(w) {
				t.Fatalf("what the command planted outlived coder sandbox (%s):\n%s", sig, stderr.String())
			}
			if left := markerPIDs("sleep", m); len(left) > 0 {
				t.Fatalf("the command outlived coder sandbox: %v", left)
			}
			if j, _ := os.ReadDir(filepath.Join(w.home, ".config/coder/sandbox-journal")); len(j) > 0 {
				t.Fatalf("a journal was left after an orderly end: %v", j)
			}
		})
	}
}

// TestRestoreAfterSIGKILL: coder killed outright leaves its journal; the
// next coder started in the workspace puts back what the task planted and
// says so, and leaves what the person made after the kill (positive
// control: a .mcp.json of theirs).
func TestRestoreAfterSIGKILL(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelLandlock)
	for _, level := range boundaryLevels() {
		t.Run(level.String(), func(t *testing.T) {
			w := signalWorld(t, level)
			cfg := fileHashes(t, w.ws, []string{".git/config"})
			m := marker()
			t.Cleanup(func() { killMarked(m) })
			var cmd *exec.Cmd
			c, wait := startCoder(t, w, llmtest.Calls(plantAndWait(m)), signalWhenPlanted(t, w, &cmd, syscall.SIGKILL))
			cmd = c
			if _, code := wait(); code != -1 {
				t.Fatalf("coder was not killed: exit %d", code)
			}
			if !planted(w) {
				t.Fatal("nothing planted: the test proves nothing")
			}
			// The person, later: past the journal's last beat and its margin.
			time.Sleep(7 * time.Second)
			writeFile(t, w.ws, "web/.mcp.json", `{"mcpServers":{"mine":{}}}`)
			res, _ := w.headless(t)
			if !strings.Contains(res.stderr, "after a coder that ended early: moved pkg/.mcp.json aside") {
				t.Fatalf("the next start did not say what it put back:\n%s", res.stderr)
			}
			if planted(w) || fileHashes(t, w.ws, []string{".git/config"}) != cfg {
				t.Fatal("what the task planted outlived the next start")
			}
			if b, err := os.ReadFile(filepath.Join(w.ws, "web/.mcp.json")); err != nil || !strings.Contains(string(b), "mine") {
				t.Fatalf("the person's later .mcp.json was not left: %q %v", b, err)
			}
		})
	}
}

// TestREPLTerminalClosedRestores: the person closes the terminal coder's
// REPL runs in (the pane's pty goes away: SIGHUP) while a background task
// that planted control files runs. coder ends in order: the task is
// stopped and what it planted is gone without a next start. Positive
// control: the planted files were there while coder ran.
func TestREPLTerminalClosedRestores(t *testing.T) {
	t.Parallel()
	needLevel(t, sandbox.LevelLandlock)
	w := signalWorld(t, sandbox.Probe().Level)
	cfg := fileHashes(t, w.ws, []string{".git/config"})
	m := marker()
	t.Cleanup(func() { killMarked(m) })
	srv := llmtest.NewServer(t, llmtest.Scenario{Steps: []llmtest.Step{llmtest.Calls(plantAndWait(m)), llmtest.Text("started it")}})
	s := startTmux(t, srv, w.ws, w.env)
	s.typeText("start the task")
	s.keys("Enter")
	deadline := time.Now().Add(60 * time.Second)
	for !planted(w) || !strings.Contains(s.screen(), "started it") {
		if time.Now().After(deadline) {
			t.Fatalf("the task never planted:\n%s", s.screen())
		}
		if scr := s.screen(); strings.Contains(scr, "Approve?") && !strings.Contains(scr, "started it") {
			s.typeText("y")
			s.keys("Enter")
			time.Sleep(500 * time.Millisecond)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if fileHashes(t, w.ws, []string{".git/config"}) == cfg && sandbox.Probe().Level < sandbox.LevelFull {
		t.Fatal("control: the task's git config did not land below level full")
	}
	s.tmux("kill-server") // the terminal closes
	deadline = time.Now().Add(60 * time.Second)
	for planted(w) || fileHashes(t, w.ws, []string{".git/config"}) != cfg || len(markerPIDs("sleep", m)) > 0 {
		if time.Now().After(deadline) {
			t.Fatalf("what the task planted outlived the closed terminal (planted %v, task %v)", planted(w), markerPIDs("sleep", m))
		}
		time.Sleep(100 * time.Millisecond)
	}
	// The restore ran in coder, in order: no journal was left for a next start.
	deadline = time.Now().Add(30 * time.Second)
	for {
		j, _ := os.ReadDir(filepath.Join(w.home, ".config/coder/sandbox-journal"))
		if len(j) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("a journal was left: %v", j)
		}
		time.Sleep(100 * time.Millisecond)
	}
}
