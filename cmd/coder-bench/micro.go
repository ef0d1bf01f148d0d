package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// grepPattern is what the grep comparison searches for in the Go source
// tree; BenchmarkGrepGoSrc* in internal/tools read it from GREP_BENCH_PATTERN.
const grepPattern = `func \w+\(ctx context\.Context`

// grepResult compares the built-in walker with rg on $(go env GOROOT)/src.
type grepResult struct {
	builtin, rgBackend, rgCLI                   time.Duration
	builtinMatches, rgBackendMatches, rgMatches int
}

// measureGrep runs the GrepGoSrc benchmarks (the built-in walker and the rg
// backend, in-process, a whole search per iteration) and times the rg command
// itself with the options coder gives it, counting its matches the way the
// rg backend does.
func measureGrep(modRoot string, n int) (grepResult, error) {
	var g grepResult
	res, err := goBench(modRoot, "./internal/tools/", "^BenchmarkGrepGoSrc", "3x", n, "GREP_BENCH_PATTERN="+grepPattern)
	if err != nil {
		return g, err
	}
	ns, _, err := benchMedian(res, "BenchmarkGrepGoSrcBuiltin", "ns/op")
	if err != nil {
		return g, err
	}
	g.builtin = time.Duration(ns)
	m, _, _ := benchMedian(res, "BenchmarkGrepGoSrcBuiltin", "matches")
	g.builtinMatches = int(m)
	rg, err := exec.LookPath("rg")
	if err != nil {
		return g, fmt.Errorf("rg is not on PATH: the built-in walker has nothing to be compared with")
	}
	if ns, _, err = benchMedian(res, "BenchmarkGrepGoSrcRg", "ns/op"); err != nil {
		return g, err
	}
	g.rgBackend = time.Duration(ns)
	m, _, _ = benchMedian(res, "BenchmarkGrepGoSrcRg", "matches")
	g.rgBackendMatches = int(m)

	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		return g, fmt.Errorf("go env GOROOT: %w", err)
	}
	root := filepath.Join(strings.TrimSpace(string(out)), "src")
	type rgRun struct {
		wall    time.Duration
		matches int
	}
	runs, err := repeat(n, func() (rgRun, error) {
		f, err := os.CreateTemp("", "coder-bench-rg-")
		if err != nil {
			return rgRun{}, err
		}
		defer os.Remove(f.Name())
		defer f.Close()
		cmd := exec.Command(rg, rgArgs(grepPattern, root)...)
		cmd.Stdout = f
		start := time.Now()
		if err := cmd.Run(); err != nil {
			return rgRun{}, fmt.Errorf("rg: %w", err)
		}
		wall := time.Since(start)
		matches, err := countRgMatches(f.Name())
		return rgRun{wall, matches}, err
	})
	if err != nil {
		return g, err
	}
	var walls []float64
	for _, r := range runs {
		walls = append(walls, float64(r.wall))
		g.rgMatches = r.matches
	}
	g.rgCLI = time.Duration(median(walls))
	if g.builtinMatches != g.rgMatches || g.rgBackendMatches != g.rgMatches {
		return g, fmt.Errorf("grep results differ: built-in %d, rg backend %d, rg %d matching lines",
			g.builtinMatches, g.rgBackendMatches, g.rgMatches)
	}
	return g, nil
}

// rgArgs are the options internal/tools gives rg (see rgArgs in
// grep_rg.go): .gitignore rules only, hidden files searched, raw bytes.
func rgArgs(pattern, root string) []string {
	return []string{"--json", "--no-config", "--hidden", "--no-require-git",
		"--no-ignore-parent", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-exclude",
		"--no-messages", "--encoding", "none", "--glob", "!.git", "--glob", "!.coder/sessions", "--glob", "!.coder/coder.db*",
		"--regexp", pattern, "--", root}
}

// countRgMatches counts the matching lines of rg --json output, leaving out
// files rg found binary, as coder does.
func countRgMatches(path string) (int, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	total, pending := 0, 0
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m struct {
			Type string `json:"type"`
			Data struct {
				BinaryOffset *int64 `json:"binary_offset"`
			} `json:"data"`
		}
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			return 0, fmt.Errorf("rg output: %w", err)
		}
		switch m.Type {
		case "match":
			pending++
		case "end":
			if m.Data.BinaryOffset == nil {
				total += pending
			}
			pending = 0
		}
	}
	return total, sc.Err()
}

// measureLoad5000 is BenchmarkLoad5000 of internal/session: loading a
// 5,000-message session from SQLite.
func measureLoad5000(modRoot string, n int) (time.Duration, error) {
	res, err := goBench(modRoot, "./internal/session/", "^BenchmarkLoad5000$", "10x", n)
	if err != nil {
		return 0, err
	}
	ns, _, err := benchMedian(res, "BenchmarkLoad5000", "ns/op")
	return time.Duration(ns), err
}

// measureTurn20 is BenchmarkTurn20Steps of internal/orchestrator: time per
// model call of a 21-call turn against the in-process fake server, the fake's
// SSE encoding and the read tool included.
func measureTurn20(modRoot string, n int) (time.Duration, error) {
	res, err := goBench(modRoot, "./internal/orchestrator/", "^BenchmarkTurn20Steps$", "20x", n)
	if err != nil {
		return 0, err
	}
	ns, _, err := benchMedian(res, "BenchmarkTurn20Steps", "ns/model-call")
	return time.Duration(ns), err
}

// keptMetrics is BenchmarkSetup of internal/sandbox at the best level
// here: `bash -c true` in the sandbox a session keeps set up between its
// commands and in a sandbox of its own, against the same started bare from
// the benchmark's process, run by run. What a session's sandboxed call
// costs, where `sandbox` times a whole `coder sandbox` process.
func keptMetrics(modRoot string, n int) ([]Metric, error) {
	res, err := goBench(modRoot, "./internal/sandbox/", "^BenchmarkSetup$", "30x", n)
	if err != nil {
		return nil, err
	}
	for _, level := range []string{"full", "landlock", "none"} {
		kept, own := "BenchmarkSetup/kept-"+level, "BenchmarkSetup/"+level
		if _, ok := res[kept]; !ok {
			continue
		}
		_, keptNS, err := benchMedian(res, kept, "ns/op")
		if err != nil {
			return nil, err
		}
		_, keptX, err := benchMedian(res, kept, "x-bare")
		if err != nil {
			return nil, err
		}
		_, ownX, err := benchMedian(res, own, "x-bare")
		if err != nil {
			return nil, err
		}
		for i := range keptNS {
			keptNS[i] /= 1e6
		}
		return []Metric{
			runMetric("kept.ms", "kept: `bash -c true` in a session's kept sandbox ("+level+"), in-process (BenchmarkSetup)", "ms", keptNS, nil, true),
			runMetric("kept.vs_bare", "kept: the same / `bash -c true` started bare from that process, run by run", "×", keptX, nil, true),
			runMetric("kept.own_vs_bare", "kept: in a sandbox of its own ("+level+") / bare, run by run", "×", ownX, nil, true),
		}, nil
	}
	return nil, errors.New("BenchmarkSetup ran no kept sandbox here (no sandbox level?)")
}
