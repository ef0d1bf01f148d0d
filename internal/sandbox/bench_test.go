package sandbox

import (
	"context"
	"os"
	"os/exec"
	"testing"
)

// BenchmarkSetup measures the cost of one sandboxed `bash -c true` at each
// level against an unsandboxed one: go test -run '^$' -bench Setup.
// The ratio to the unsandboxed run is reported as "x-bare".
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
	for _, l := range []Level{LevelFull, LevelLandlock, LevelNone} {
		if l > Probe().Level {
			continue
		}
		b.Run(l.String(), func(b *testing.B) {
			p := Profile{Workspace: ws, TempDir: tmp, Level: l, WritableRoots: []string{home + "/.cache"},
				DenyRead: []string{home + "/.ssh", home + "/.aws"}}
			for b.Loop() {
				cmd, err := Command(context.Background(), p, []string{"/bin/bash", "-c", "true"})
				if err != nil {
					b.Fatal(err)
				}
				proc, err := Start(cmd)
				if err != nil {
					b.Fatal(err)
				}
				if err := proc.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			if bareNS > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bareNS, "x-bare")
			}
		})
	}
	// kept: the sandbox kept set up between commands (Warm), as a
	// session's foreground commands run.
	for _, l := range []Level{LevelFull, LevelLandlock, LevelNone} {
		if l > Probe().Level {
			continue
		}
		b.Run("kept-"+l.String(), func(b *testing.B) {
			p := Profile{Workspace: ws, TempDir: tmp, Level: l, WritableRoots: []string{home + "/.cache"},
				DenyRead: []string{home + "/.ssh", home + "/.aws"}}
			w := &Warm{}
			defer w.Close()
			for b.Loop() {
				proc, err := w.Start(context.Background(), p, []string{"/bin/bash", "-c", "true"}, nil, nil)
				if err != nil {
					b.Fatal(err)
				}
				if err := proc.Wait(); err != nil {
					b.Fatal(err)
				}
			}
			if bareNS > 0 {
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/bareNS, "x-bare")
			}
		})
	}
}
