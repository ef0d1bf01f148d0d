package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkSetup measures the cost of one sandboxed `bash -c true` at each
// level, in a sandbox of its own and in the kept one, against an
// unsandboxed one: go test -run '^$' -bench Setup. The ratio to the
// unsandboxed run is reported as "x-bare".
func BenchmarkSetup(b *testing.B) {
	ws := b.TempDir()
	tmp := b.TempDir()
	bare := func() {
		cmd := exec.Command("/bin/bash", "-c", "true")
		cmd.Dir = ws
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
	var bareNS float64
	b.Run("bare", func(b *testing.B) {
		for b.Loop() {
			bare()
		}
		bareNS = float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	})
	home, _ := os.UserHomeDir()
	argv := []string{"/bin/bash", "-c", "true"}
	// each times start's sandboxed true at every level here, as "prefix" +
	// the level's name.
	each := func(prefix string, start func(Profile, *Warm) (*Process, error)) {
		for _, l := range []Level{LevelFull, LevelLandlock, LevelNone} {
			if l > Probe().Level {
				continue
			}
			b.Run(prefix+l.String(), func(b *testing.B) {
				p := Profile{Workspace: ws, TempDir: tmp, Level: l, WritableRoots: []string{home + "/.cache"},
					DenyRead: []string{home + "/.ssh", home + "/.aws"}}
				w := &Warm{}
				defer w.Close()
				run := func() {
					proc, err := start(p, w)
					if err != nil {
						b.Fatal(err)
					}
					if err := proc.Wait(); err != nil {
						b.Fatal(err)
					}
				}
				run() // untimed (b.Loop starts the clock): the kept sandbox's set-up, a warm page cache
				for b.Loop() {
					run()
				}
				if bareNS > 0 {
					b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bareNS, "x-bare")
				}
			})
		}
	}
	each("", func(p Profile, _ *Warm) (*Process, error) {
		cmd, err := Command(context.Background(), p, argv)
		if err != nil {
			return nil, err
		}
		return Start(cmd)
	})
	// kept-: the sandbox kept set up between commands (Warm), as a
	// session's foreground commands run.
	each("kept-", func(p Profile, w *Warm) (*Process, error) {
		return w.Start(context.Background(), p, argv, nil, nil)
	})
}
