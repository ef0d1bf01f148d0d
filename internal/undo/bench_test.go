package undo

import (
	"context"
	"fmt"
	"testing"

	"github.com/coder-agent/coder/internal/dirwatch/dirwatchtest"
)

// BenchmarkScanBeforeAfter is the cost a bash call pays for capture when
// nothing changed (a Before and an After), with the tree kept by inotify
// and without (two stat-only walks), in workspaces of 10,000 files (100
// directories) and 50,000 files (2,551 directories), files aged as in a
// real workspace (fresh files are all racy). "on/off" is the ratio of the
// two, measured in the same run. The first Before, which reads every file
// (and adds the watches), is outside the timing: BenchmarkScanFirstBefore.
//
//	go test -run '^$' -bench 'ScanBeforeAfter|ScanFirstBefore' ./internal/undo/
func BenchmarkScanBeforeAfter(b *testing.B) {
	for _, size := range []struct {
		name  string
		files map[string]string
	}{{"files=10k", fileCount(10_000)}, {"files=50k", deepFileCount(50, 50, 20)}} {
		b.Run(size.name, func(b *testing.B) {
			ws := b.TempDir()
			writeTree(b, ws, size.files)
			ageTree(b, ws)
			st, id := openStore(b, ws)
			var offNS float64
			for _, on := range []bool{false, true} {
				b.Run("inotify="+onOff(on), func(b *testing.B) {
					sc := NewScanner(ws, ScannerOptions{})
					sc.notify = on
					turn := NewTurn(st, id, 1, ws)
					ctx := context.Background()
					if _, err := sc.Before(ctx); err != nil {
						b.Fatal(err)
					}
					b.ResetTimer()
					for b.Loop() {
						m, err := sc.Before(ctx)
						if err != nil {
							b.Fatal(err)
						}
						changed, _, err := sc.After(ctx, m, turn)
						if err != nil || len(changed) != 0 {
							b.Fatal(changed, err)
						}
					}
					dirwatchtest.ReportOnOff(b, on, &offNS)
					releaseTree(sc)
				})
			}
		})
	}
}

// BenchmarkScanFirstBefore is the first Before of a session, which reads
// all 10,000 files into the cache, and with inotify adds the watches.
func BenchmarkScanFirstBefore(b *testing.B) {
	ws := b.TempDir()
	writeTree(b, ws, fileCount(10_000))
	ctx := context.Background()
	var offNS float64
	for _, on := range []bool{false, true} {
		b.Run("files=10k/inotify="+onOff(on), func(b *testing.B) {
			for b.Loop() {
				sc := NewScanner(ws, ScannerOptions{})
				sc.notify = on
				if _, err := sc.Before(ctx); err != nil {
					b.Fatal(err)
				}
				b.StopTimer()
				releaseTree(sc)
				b.StartTimer()
			}
			dirwatchtest.ReportOnOff(b, on, &offNS)
		})
	}
}

func onOff(on bool) string {
	if on {
		return "on"
	}
	return "off"
}

// deepFileCount is a tree of top directories of sub directories of files
// each.
func deepFileCount(top, sub, files int) map[string]string {
	out := map[string]string{}
	for i := range top {
		for j := range sub {
			for k := range files {
				out[fmt.Sprintf("d%02d/s%02d/f%02d.go", i, j, k)] = fmt.Sprintf("package s%d\n\n// %d\n", j, k)
			}
		}
	}
	return out
}
