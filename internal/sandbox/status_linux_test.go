package sandbox

import (
	"context"
	"io"
	"testing"
	"time"
)

// TestHelperSaysTheSandboxEndedBeforeItExits: a one-command helper in new
// namespaces writes the command's code only when nothing else of the
// sandbox runs (what the command left in the background is killed and
// reaped). A background sandbox gets no such report: it ends with its
// last process.
func TestHelperSaysTheSandboxEndedBeforeItExits(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	m := marker()
	cmd, err := Command(context.Background(), w.profile(LevelFull), []string{"/bin/bash", "-c", "sleep " + m + " & exit 7"})
	if err != nil {
		t.Fatal(err)
	}
	sp, err := withStatus(cmd)
	if err != nil || sp == nil {
		t.Fatalf("no status pipe for a one-command sandbox: %v", err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sp.started()
	code, ok := sp.read()
	if !ok || code != 7 {
		t.Fatalf("status = %d, %v; want 7", code, ok)
	}
	if left := leftovers(m); len(left) > 0 {
		killAll(left)
		t.Fatalf("the code came while %d process(es) of the sandbox still ran", len(left))
	}
	_ = cmd.Wait()
	if got := ExitCode(cmd.ProcessState); got != 7 {
		t.Errorf("the helper exited %d, want 7", got)
	}

	bg, err := Background(w.profile(LevelFull), []string{"true"})
	if err != nil {
		t.Fatal(err)
	}
	if sp, _ := withStatus(bg); sp != nil {
		sp.close()
		t.Error("a background sandbox was asked for an early status")
	}
}

// TestProcessEndsWithAllItsOutput: a sandbox that ends on its helper's
// word has all of its output read by then, the last of it written by a
// process the command waited for, on both streams, into a writer slow
// enough that the pipes still hold some when the code comes.
func TestProcessEndsWithAllItsOutput(t *testing.T) {
	w := newWorld(t)
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			cmd, err := Command(context.Background(), w.profile(l), []string{"/bin/bash", "-c",
				`(head -c 200000 /dev/zero | tr '\0' x; echo end >&2) & wait; exit 7`})
			if err != nil {
				t.Fatal(err)
			}
			var out, errb syncBuffer
			cmd.Stdout, cmd.Stderr = slowWriter{&out}, &errb
			p, err := Start(cmd)
			if err != nil {
				t.Fatal(err)
			}
			_ = p.Wait()
			if n, e := len(out.String()), errb.String(); p.ExitCode() != 7 || n != 200000 || e != "end\n" {
				t.Fatalf("code %d, %d bytes out, stderr %q", p.ExitCode(), n, e)
			}
		})
	}
}

// slowWriter takes its time over each write.
type slowWriter struct{ w io.Writer }

func (s slowWriter) Write(b []byte) (int, error) {
	time.Sleep(20 * time.Millisecond)
	return s.w.Write(b)
}
