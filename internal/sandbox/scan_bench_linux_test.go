package sandbox

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/coder-agent/coder/internal/dirwatch/dirwatchtest"
)

// BenchmarkWarmScan measures a call's guard (Watch, then Restore: two
// scans of the workspace) in trees of about 2,000 and 20,000 directories
// (12 sub-directories a level, 5 files each), with the cache kept by
// inotify and by change times alone, the session's case: many calls in
// one process. "on/off" is the ratio of the two, measured in the same
// run. The first scan of each (cold, or adding every watch) is outside
// the timing; BenchmarkColdScan measures it.
//
//	go test -run '^$' -bench 'WarmScan|ColdScan' ./internal/sandbox/
func BenchmarkWarmScan(b *testing.B) {
	for _, depth := range []int{3, 4} {
		ws := benchTree(b, depth)
		var offNS float64
		for _, on := range []bool{false, true} {
			b.Run(benchName(depth, on), func(b *testing.B) {
				withNotify(b, on, func() {
					p := Profile{Workspace: ws, Level: LevelFull}
					guardOnce(b, p)
					for b.Loop() {
						guardOnce(b, p)
					}
				})
				dirwatchtest.ReportOnOff(b, on, &offNS)
			})
		}
	}
}

// BenchmarkColdScan measures the one-shot case (coder sandbox): a
// process's first Watch and Restore, which adds every watch. Not the
// watches' removal, which the kernel does as the process exits: the whole
// process is timed by farm-bench (docs/sandbox.md).
func BenchmarkColdScan(b *testing.B) {
	ws := benchTree(b, 3)
	var offNS float64
	for _, on := range []bool{false, true} {
		b.Run(benchName(3, on), func(b *testing.B) {
			p := Profile{Workspace: ws, Level: LevelFull}
			withNotify(b, on, func() {
				for range b.N {
					b.StopTimer()
					forgetScanners()
					b.StartTimer()
					guardOnce(b, p)
				}
			})
			dirwatchtest.ReportOnOff(b, on, &offNS)
		})
	}
}

func benchName(depth int, on bool) string {
	dirs := 1
	for i, n := 0, 1; i < depth; i++ {
		n *= 12
		dirs += n
	}
	s := "dirs=" + strconv.Itoa(dirs) + "/inotify="
	if on {
		return s + "on"
	}
	return s + "off"
}

func guardOnce(b *testing.B, p Profile) {
	g, err := Watch(p)
	if err != nil {
		b.Fatal(err)
	}
	if _, err := g.Restore(); err != nil {
		b.Fatal(err)
	}
	g.Close()
}

// benchTree makes a tree 12 directories wide, depth levels deep, with 5
// files in each directory.
func benchTree(b *testing.B, depth int) string {
	root := filepath.Join(b.TempDir(), "ws")
	var mk func(dir string, level int)
	mk = func(dir string, level int) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for i := range 5 {
			if err := os.WriteFile(filepath.Join(dir, "f"+strconv.Itoa(i)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
		if level < depth {
			for i := range 12 {
				mk(filepath.Join(dir, "d"+strconv.Itoa(i)), level+1)
			}
		}
	}
	mk(root, 0)
	return root
}
