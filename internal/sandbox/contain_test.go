//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder-agent/coder/internal/sandbox/helper"
)

// marker is a sleep duration no other process uses, to find the processes
// a test started from outside the sandbox.
func marker() string { return fmt.Sprintf("1%03d.%06d", rand.IntN(1000), rand.IntN(1000000)) }

// running lists the processes (not zombies) whose command line holds m.
func running(m string) []int { return find(m, false, false) }

// leftovers is running without the sandbox helpers, whose command lines
// hold the command's too: a one-command helper may still be exiting when
// the call returns, once everything else in its namespaces is gone.
func leftovers(m string) []int { return find(m, false, true) }

// sleeping lists the processes running exactly "sleep m".
func sleeping(m string) []int { return find(m, true, false) }

func find(m string, exact, notHelpers bool) []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		var pid int
		if _, err := fmt.Sscan(e.Name(), &pid); err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(b, []byte(m)) || exact && string(b) != "sleep\x00"+m+"\x00" {
			continue
		}
		if args := bytes.Split(b, []byte{0}); notHelpers && len(args) > 1 && string(args[1]) == helper.Arg {
			continue
		}
		if st, err := os.ReadFile("/proc/" + e.Name() + "/stat"); err == nil && !zombie(st) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// zombie reads the state from a /proc/PID/stat: the field after the
// command name, which ends at the last ')'.
func zombie(stat []byte) bool {
	i := bytes.LastIndexByte(stat, ')')
	return i >= 0 && bytes.HasPrefix(stat[i+1:], []byte(" Z"))
}

func killAll(pids []int) {
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
}

// escapes are the ways a command leaves something running behind it.
var escapes = map[string]string{
	"&":                 `sleep {M} &`,
	"setsid":            `setsid sleep {M} &`,
	"setsid --fork":     `setsid -f sleep {M}`,
	"double fork":       `( ( sleep {M} & ) & )`,
	"nohup":             `nohup sleep {M} >/dev/null 2>&1 &`,
	"disown":            `sleep {M} & disown`,
	"daemon-like":       `sh -c 'trap "" HUP TERM; sleep {M}' </dev/null >/dev/null 2>&1 &`,
	"process group":     `set -m; sleep {M} &`,
	"holding stdout":    `sleep {M} & echo started`,
	"background subsh.": `( trap '' TERM; while :; do sleep {M}; done ) &`,
}

// TestNothingOutlivesTheCall: whatever a command leaves running is gone
// when the call returns, at every level.
func TestNothingOutlivesTheCall(t *testing.T) {
	w := newWorld(t)
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			for name, script := range escapes {
				m := marker()
				start := time.Now()
				r := run(t, w.profile(l), strings.ReplaceAll(script, "{M}", m)+"\nsleep 0.2")
				if r.code != 0 {
					t.Errorf("%s: the script failed, so it proves nothing: %+v", name, r)
				}
				if left := leftovers(m); len(left) > 0 {
					killAll(left)
					t.Errorf("%s: %d process(es) outlived the call: %+v", name, len(left), r)
				}
				waitFor(t, func() bool { return len(running(m)) == 0 }, name+": the helper to exit")
				if d := time.Since(start); d > 20*time.Second {
					t.Errorf("%s: the call took %v", name, d)
				}
			}
		})
	}
}

// TestSandboxDiesWithItsParent: when coder dies, even by SIGKILL, the
// sandbox and everything in it die too (the parent-death signal).
func TestSandboxDiesWithItsParent(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			m := marker()
			parent := exec.Command(os.Args[0], "-test.run=^$")
			parent.Env = append(os.Environ(), "SANDBOX_TEST_PARENT="+l.String(), "SANDBOX_TEST_WS="+w.ws,
				"SANDBOX_TEST_SCRIPT=setsid sleep "+m+" & sleep "+m)
			out, err := parent.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := parent.Start(); err != nil {
				t.Fatal(err)
			}
			if line, err := bufio.NewReader(out).ReadString('\n'); err != nil || line != "started\n" {
				t.Fatalf("the parent did not start the sandbox: %q %v", line, err)
			}
			waitFor(t, func() bool { return len(sleeping(m)) == 2 }, "the sandboxed processes to start")
			_ = parent.Process.Signal(syscall.SIGKILL) // coder dies without cleaning up
			_ = parent.Wait()
			waitFor(t, func() bool { return len(running(m)) == 0 }, "the sandbox to die with its parent")
		})
	}
}

// TestBackgroundTaskLivesUntilStopped: a long-lived sandbox outlasts its
// first command, keeps its processes and output, and Stop ends it all.
func TestBackgroundTaskLivesUntilStopped(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			m := marker()
			cmd, err := Background(w.profile(l), []string{"/bin/bash", "-c",
				`(trap '' TERM; while :; do echo tick; sleep ` + m + `; done) & setsid sleep ` + m + ` & echo started`})
			if err != nil {
				t.Fatal(err)
			}
			var out syncBuffer
			cmd.Stdout = &out
			proc, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			waitFor(t, func() bool { return strings.Contains(out.String(), "started") && len(sleeping(m)) == 2 }, "the task to start")
			time.Sleep(300 * time.Millisecond) // the first command has long exited
			select {
			case <-proc.Done():
				t.Fatalf("the background sandbox ended with its first command: %q", out.String())
			default:
			}
			if n := len(sleeping(m)); n != 2 {
				t.Fatalf("%d of the task's processes run, want 2", n)
			}
			proc.Stop()
			if left := running(m); len(left) > 0 {
				killAll(left)
				t.Fatalf("%d process(es) outlived Stop", len(left))
			}
			if !strings.Contains(out.String(), "tick") {
				t.Errorf("output: %q", out.String())
			}
		})
	}
}

// TestBackgroundTaskEndsWithItsLastProcess: a long-lived sandbox whose
// processes have all ended ends by itself, with the command's exit code.
func TestBackgroundTaskEndsWithItsLastProcess(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			cmd, err := Background(w.profile(l), []string{"/bin/sh", "-c", `(sleep 0.3; echo late > late.txt) & exit 3`})
			if err != nil {
				t.Fatal(err)
			}
			proc, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			select {
			case <-proc.Done():
			case <-time.After(30 * time.Second):
				proc.Stop()
				t.Fatal("the task did not end")
			}
			if code := proc.ExitCode(); code != 3 {
				t.Errorf("exit %d, want 3", code)
			}
			if _, err := os.Stat(filepath.Join(w.ws, "late.txt")); err != nil {
				t.Errorf("the late process did not finish before the sandbox ended: %v", err)
			}
		})
	}
}

// TestStopAsItStartsIsNoLongWait: a call stopped as it starts (Esc right
// after the model ran a command, a timeout at once) ends then, not after
// the grace with a SIGKILL. A helper that is PID 1 of its namespaces only
// receives SIGTERM once it catches it; sent in its first milliseconds, the
// kernel dropped it, and every such Stop took 3 s and ended in SIGKILL.
func TestStopAsItStartsIsNoLongWait(t *testing.T) {
	for _, level := range levels(t, LevelNone) {
		t.Run(level.String(), func(t *testing.T) {
			w := newWorld(t)
			for range 3 {
				cmd, err := Command(context.Background(), w.profile(level), []string{"/bin/sleep", "300"})
				if err != nil {
					t.Fatal(err)
				}
				proc, err := Start(cmd)
				if err != nil {
					t.Fatal(err)
				}
				start := time.Now()
				proc.Stop()
				took := time.Since(start)
				if code := proc.ExitCode(); code == 128+int(syscall.SIGKILL) {
					t.Fatalf("stopped as it started, the sandbox was killed after %v, not ended by SIGTERM", took)
				}
				if took >= 3*helper.StopGrace {
					t.Fatalf("Stop took %v", took)
				}
			}
		})
	}
}
