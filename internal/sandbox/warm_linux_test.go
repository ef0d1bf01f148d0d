package sandbox

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

func init() {
	runWarm = func(t *testing.T, p Profile, script string) result {
		t.Helper()
		w := &Warm{}
		defer w.Close()
		r, _ := warmRun(t, w, p, script)
		return r
	}
}

// warmWorld is a test's world and its full-level profile, with a Warm
// closed when the test ends.
func warmWorld(t *testing.T) (*world, Profile, *Warm) {
	t.Helper()
	needFull(t)
	return warmWorldAt(t, LevelFull)
}

// warmWorldAt is warmWorld at level.
func warmWorldAt(t *testing.T, level Level) (*world, Profile, *Warm) {
	t.Helper()
	wd := newWorld(t)
	w := &Warm{}
	t.Cleanup(w.Close)
	return wd, wd.profile(level), w
}

// startKept starts argv through w and reports whether it runs in the kept
// sandbox; one started the usual way has ended when it returns.
func startKept(t *testing.T, w *Warm, ctx context.Context, p Profile, argv []string, stdout, stderr io.Writer) (*Process, bool) {
	t.Helper()
	proc, err := w.Start(ctx, p, argv, stdout, stderr)
	if err != nil {
		t.Fatal(err)
	}
	if proc.cmd != nil {
		<-proc.Done()
		return proc, false
	}
	return proc, true
}

// warmUp runs true through w, in the kept sandbox (set up for it if none
// is kept for p): the next command with p's sandbox runs there too.
func warmUp(t *testing.T, w *Warm, p Profile) {
	t.Helper()
	proc, ok := startKept(t, w, context.Background(), p, []string{"/bin/true"}, nil, nil)
	if !ok {
		t.Fatal("the command did not run in the kept sandbox")
	}
	<-proc.Done()
}

// warmRun runs script with bash in w's kept sandbox for p, once it is set
// up, and returns the result and the serving helper that ran it.
func warmRun(t *testing.T, w *Warm, p Profile, script string) (result, *zygote) {
	t.Helper()
	warmUp(t, w, p)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errb syncBuffer
	proc, ok := startKept(t, w, ctx, p, []string{"/bin/bash", "-c", script}, &out, &errb)
	if !ok {
		t.Fatal("a command after the warm-up did not run in the kept sandbox")
	}
	w.mu.Lock()
	z := w.z
	w.mu.Unlock()
	<-proc.Done()
	return result{code: proc.ExitCode(), stdout: out.String(), stderr: errb.String()}, z
}

// TestWarmRunsEachCommandInACleanSandbox: at every level, commands after
// the first run in the same serving helper (no new sandbox each), get
// their streams and exit codes, and find nothing the last one left
// running, setsid and double forks included (the positive control: it
// was running while that command ran).
func TestWarmRunsEachCommandInACleanSandbox(t *testing.T) {
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			wd, p, w := warmWorldAt(t, l)
			r, z1 := warmRun(t, w, p, `setsid sleep 60 & echo $! > pid; ( ( sleep 60 & echo $! > pid2 ) & ); sleep 0.2; `+
				`kill -0 $(cat pid) && kill -0 $(cat pid2) && echo running; echo out; echo err >&2; exit 7`)
			if r.code != 7 || r.stdout != "running\nout\n" || r.stderr != "err\n" {
				t.Fatalf("first command: %+v", r)
			}
			r, z2 := warmRun(t, w, p, `for f in pid pid2; do if kill -0 $(cat $f) 2>/dev/null; then echo still there; else echo gone; fi; done; echo "$HOME"`)
			if r.code != 0 || r.stdout != "gone\ngone\n"+wd.home+"\n" {
				t.Fatalf("what the first command left, or its HOME (the profile's, given last): %+v", r)
			}
			if z1 != z2 {
				t.Fatal("the second command did not run in the kept sandbox")
			}
		})
	}
}

// TestWarmKeepsTheSandboxsRules: in the kept sandbox as in a new one, a
// file outside the workspace cannot be written and (at the full level,
// whose mounts hide it) a denied one cannot be read, while the workspace
// can be written (the positive control); the socket to coder cannot be
// reached.
func TestWarmKeepsTheSandboxsRules(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			wd, p, w := warmWorldAt(t, l)
			outside := filepath.Join(wd.outside, "keep")
			secret := filepath.Join(wd.home, ".ssh", "id_ed25519")
			r, _ := warmRun(t, w, p, `echo made > made.txt; echo x >> `+outside+`; cat `+secret+`; true`)
			if b, err := os.ReadFile(filepath.Join(wd.ws, "made.txt")); err != nil || string(b) != "made\n" {
				t.Fatalf("control: the workspace was not writable: %v %q (%+v)", err, b, r)
			}
			if b, _ := os.ReadFile(outside); string(b) != "keep\n" {
				t.Fatalf("a file outside the workspace was written: %q", b)
			}
			if l == LevelFull && strings.Contains(r.stdout, "SECRET") {
				t.Fatalf("a denied file was read: %+v", r)
			}
			// The socket to coder: not among the command's descriptors, and
			// not to be opened through the serving helper's, its parent's
			// (the control: the command sees its own).
			r, _ = warmRun(t, w, p, `for f in /proc/$$/fd/*; do echo "own ${f##*/} $(readlink $f)"; done; `+
				`echo parent $(tr '\0' '\n' < /proc/$PPID/cmdline | grep -cx serve=1); `+
				`exec 9<>/proc/$PPID/fd/3 && echo opened; true`)
			if strings.Contains(r.stdout, "socket:") || strings.Contains(r.stdout, "opened") {
				t.Fatalf("the command reached the socket to coder: %+v", r)
			}
			if !strings.Contains(r.stdout, "own 2 ") || !strings.Contains(r.stdout, "parent 1\n") {
				t.Fatalf("control: the command's own descriptors were not listed, or its parent is not the serving helper: %+v", r)
			}
		})
	}
}

// TestWarmStopEndsTheCommandNotTheSandbox: a stopped command (cancel, a
// timeout) ends with SIGTERM's code within the grace period, and the kept
// sandbox runs the next one.
func TestWarmStopEndsTheCommandNotTheSandbox(t *testing.T) {
	_, p, w := warmWorld(t)
	_, z1 := warmRun(t, w, p, `true`)

	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	proc, ok := startKept(t, w, ctx, p, []string{"/bin/bash", "-c", "echo begun; exec sleep 60"}, &out, nil)
	if !ok {
		t.Fatal("the kept sandbox was not used")
	}
	time.Sleep(100 * time.Millisecond)
	began := time.Now()
	cancel()
	select {
	case <-proc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("a cancelled command did not end")
	}
	if d := time.Since(began); d > 10*time.Second {
		t.Fatalf("ending took %v", d)
	}
	if c := proc.ExitCode(); c != 128+int(syscall.SIGTERM) {
		t.Fatalf("exit code %d, want %d", c, 128+int(syscall.SIGTERM))
	}
	r, z2 := warmRun(t, w, p, `echo next`)
	if r.stdout != "next\n" || z1 != z2 {
		t.Fatalf("after a stop: %+v, same sandbox %v", r, z1 == z2)
	}
}

// TestWarmOtherSandboxReplacesTheKeptOne: a command whose sandbox differs
// runs in one set up for it, and the one kept before ends; a second
// command while one runs starts the usual way; a serving helper that dies
// is replaced, not used.
func TestWarmOtherSandboxReplacesTheKeptOne(t *testing.T) {
	_, p, w := warmWorld(t)
	_, z1 := warmRun(t, w, p, `true`)

	other := p
	other.Network = !p.Network
	r, z2 := warmRun(t, w, other, `echo other`)
	if r.stdout != "other\n" || z2 == z1 || z2.key == z1.key {
		t.Fatalf("a command with another sandbox: %+v, same serving helper %v", r, z2 == z1)
	}
	select {
	case <-z1.proc.Done():
	case <-time.After(30 * time.Second):
		t.Fatal("the sandbox kept before was not ended")
	}

	running, ok := startKept(t, w, context.Background(), other, []string{"/bin/bash", "-c", "sleep 1"}, nil, nil)
	if !ok {
		t.Fatal("control: the kept sandbox was not used")
	}
	var out syncBuffer
	second, ok := startKept(t, w, context.Background(), other, []string{"/bin/echo", "meanwhile"}, &out, nil)
	if ok || out.String() != "meanwhile\n" || second.ExitCode() != 0 {
		t.Fatalf("a second command while one ran: kept %v, %q, exit %d", ok, out.String(), second.ExitCode())
	}
	<-running.Done()

	_ = z2.proc.cmd.Process.Kill()
	<-z2.dead
	r, z3 := warmRun(t, w, other, `echo again`)
	if r.stdout != "again\n" || z3 == z2 {
		t.Fatalf("after the serving helper died: %+v, same one %v", r, z3 == z2)
	}
}

// TestWarmStreamsAndWhatCannotStart: one writer for both streams gets them
// in order; a program not found exits 127 saying so; a command too long to
// hand over starts the usual way.
func TestWarmStreamsAndWhatCannotStart(t *testing.T) {
	_, p, w := warmWorld(t)
	warmUp(t, w, p)

	var both syncBuffer
	proc, ok := startKept(t, w, context.Background(), p, []string{"/bin/bash", "-c", "echo a; echo b >&2; echo c"}, &both, &both)
	if !ok {
		t.Fatal("the kept sandbox was not used")
	}
	<-proc.Done()
	if both.String() != "a\nb\nc\n" || proc.ExitCode() != 0 {
		t.Fatalf("one writer for both streams: %q, exit %d", both.String(), proc.ExitCode())
	}

	var errb syncBuffer
	proc, ok = startKept(t, w, context.Background(), p, []string{"no-such-program-here"}, nil, &errb)
	if !ok {
		t.Fatal("the kept sandbox was not used")
	}
	<-proc.Done()
	if proc.ExitCode() != 127 || !strings.Contains(errb.String(), "not found") {
		t.Fatalf("a missing program: exit %d, stderr %q", proc.ExitCode(), errb.String())
	}

	long := strings.Repeat("x", 100<<10) // two, over MaxMsg; each under the kernel's bound for one
	var out syncBuffer
	proc, ok = startKept(t, w, context.Background(), p, []string{"/bin/echo", long, long}, &out, nil)
	if ok {
		t.Fatal("a command too long to hand over was handed over")
	}
	if out.String() != long+" "+long+"\n" || proc.ExitCode() != 0 {
		t.Fatalf("a command too long to hand over did not run the usual way: exit %d, %d bytes", proc.ExitCode(), len(out.String()))
	}
}

// TestWarmFirstCommandRunsInTheKeptSandbox: a session's first command
// already runs in the sandbox that is then kept, so the second finds it
// set up: no set-up beside the one the command needs.
func TestWarmFirstCommandRunsInTheKeptSandbox(t *testing.T) {
	_, p, w := warmWorld(t)
	var out syncBuffer
	first, ok := startKept(t, w, context.Background(), p, []string{"/bin/echo", "first"}, &out, nil)
	if !ok {
		t.Fatal("the first command did not run in the sandbox it set up")
	}
	<-first.Done()
	w.mu.Lock()
	z := w.z
	w.mu.Unlock()
	if out.String() != "first\n" || first.ExitCode() != 0 || z == nil {
		t.Fatalf("first command: %q, exit %d, kept %v", out.String(), first.ExitCode(), z != nil)
	}
	if _, z2 := warmRun(t, w, p, `true`); z2 != z {
		t.Fatal("the second command did not run in the sandbox the first set up")
	}
}

// TestWarmLateStopDoesNotReachTheNextCommand: a stop sent for a command
// that already ended (its id) leaves the command running now alone; the
// same stop with the running command's id ends it (the control).
func TestWarmLateStopDoesNotReachTheNextCommand(t *testing.T) {
	_, p, w := warmWorld(t)
	warmUp(t, w, p)
	start := func() (*Process, *zygote, string) {
		proc, ok := startKept(t, w, context.Background(), p, []string{"/bin/bash", "-c", "sleep 1; exit 3"}, nil, nil)
		if !ok {
			t.Fatal("the kept sandbox was not used")
		}
		w.mu.Lock()
		defer w.mu.Unlock()
		return proc, w.z, strconv.Itoa(w.z.jobs)
	}
	proc, z, id := start()
	stale := strconv.Itoa(z.jobs - 1)
	if _, err := z.conn.Write([]byte("term\x00" + stale)); err != nil {
		t.Fatal(err)
	}
	<-proc.Done()
	if c := proc.ExitCode(); c != 3 {
		t.Fatalf("a late stop ended the next command: exit %d", c)
	}
	proc, z, id = start()
	if _, err := z.conn.Write([]byte("term\x00" + id)); err != nil {
		t.Fatal(err)
	}
	<-proc.Done()
	if c := proc.ExitCode(); c != 128+int(syscall.SIGTERM) {
		t.Fatalf("control: the stop for the running command did not end it: exit %d", c)
	}
}

// TestWarmCancelledWhileSettingUp: a command cancelled while its sandbox
// sets up does not start, and the set-up goes on for the next one; a kept
// sandbox coder ends while it still sets up (another sandbox was asked
// for) is not counted as one that could not come up: its spec gets one
// again later.
func TestWarmCancelledWhileSettingUp(t *testing.T) {
	_, p, w := warmWorld(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if proc, err := w.Start(ctx, p, []string{"/bin/true"}, nil, nil); err == nil {
		<-proc.Done()
		t.Fatalf("a cancelled command started (exit %d)", proc.ExitCode())
	}
	w.mu.Lock()
	z := w.z
	w.mu.Unlock()
	if z == nil {
		t.Fatal("nothing was being set up")
	}
	if _, z2 := warmRun(t, w, p, `true`); z2 != z {
		t.Fatal("the next command did not get the sandbox set up for the cancelled one")
	}

	other := p
	other.Network = !p.Network
	for _, q := range []Profile{other, p} { // other's sets up, then p's replaces it
		if proc, err := w.Start(ctx, q, []string{"/bin/true"}, nil, nil); err == nil {
			<-proc.Done()
			t.Fatal("a cancelled command started")
		}
	}
	if r, _ := warmRun(t, w, other, `echo back`); r.stdout != "back\n" {
		t.Fatalf("%+v", r)
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if len(w.failed) != 0 {
		t.Fatalf("a sandbox coder ended while it set up was counted as failed: %v", w.failed)
	}
}
