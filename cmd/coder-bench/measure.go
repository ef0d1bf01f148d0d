package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"time"
)

// proc is one finished process: wall time from fork to exit and the largest
// resident set of the process or any descendant it waited for.
type proc struct {
	wall time.Duration
	// cpu is user + system time of the process and the children it waited
	// for: less moved than wall time by other work on the machine.
	cpu            time.Duration
	maxRSSBytes    int64
	code           int
	stdout, stderr string
}

// procTimeout ends a run that hangs (a scenario answered wrongly can leave
// coder waiting).
const procTimeout = 2 * time.Minute

// runProc runs bin in dir with exactly env, stdin empty, and its output in
// files (no pipe-copying goroutines inside the timed region).
func runProc(bin string, args []string, dir string, env []string) (proc, error) {
	outDir, err := os.MkdirTemp("", "coder-bench-out-")
	if err != nil {
		return proc{}, err
	}
	defer os.RemoveAll(outDir)
	stdout, err := os.Create(filepath.Join(outDir, "stdout"))
	if err != nil {
		return proc{}, err
	}
	defer stdout.Close()
	stderr, err := os.Create(filepath.Join(outDir, "stderr"))
	if err != nil {
		return proc{}, err
	}
	defer stderr.Close()
	ctx, cancel := context.WithTimeout(context.Background(), procTimeout)
	defer cancel()
	var cmd *exec.Cmd
	var report, reportW *os.File
	if spawnMeasured {
		// A small spawner starts bin and times it (spawn.go says why).
		self, err := os.Executable()
		if err != nil {
			return proc{}, err
		}
		if report, reportW, err = os.Pipe(); err != nil {
			return proc{}, err
		}
		defer report.Close()
		cmd = exec.CommandContext(ctx, self, append([]string{spawnArg, bin}, args...)...)
		cmd.ExtraFiles = []*os.File{reportW}
	} else {
		cmd = exec.CommandContext(ctx, bin, args...)
	}
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdout, cmd.Stderr = stdout, stderr
	start := time.Now()
	err = cmd.Start()
	if reportW != nil {
		reportW.Close()
	}
	if err != nil {
		return proc{}, fmt.Errorf("starting %s: %w", bin, err)
	}
	err = cmd.Wait()
	wall := time.Since(start)
	if ctx.Err() != nil {
		return proc{}, fmt.Errorf("%s did not exit within %s", bin, procTimeout)
	}
	var p proc
	if spawnMeasured {
		if err != nil {
			e, _ := os.ReadFile(stderr.Name())
			return proc{}, fmt.Errorf("running %s: %w\n%s", bin, err, e)
		}
		got, err := readSpawned(report)
		if err != nil {
			return proc{}, err
		}
		p = proc{wall: got.wall, cpu: got.cpu, maxRSSBytes: got.maxRSS, code: got.code}
	} else {
		var exitErr *exec.ExitError
		if err != nil && !errors.As(err, &exitErr) {
			return proc{}, fmt.Errorf("running %s: %w", bin, err)
		}
		ps := cmd.ProcessState
		p = proc{wall: wall, cpu: ps.UserTime() + ps.SystemTime(), maxRSSBytes: maxRSS(ps), code: ps.ExitCode()}
	}
	o, _ := os.ReadFile(stdout.Name())
	e, _ := os.ReadFile(stderr.Name())
	p.stdout, p.stderr = string(o), string(e)
	return p, nil
}

// median of xs (the mean of the middle two for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if n := len(s); n%2 == 1 {
		return s[n/2]
	} else {
		return (s[n/2-1] + s[n/2]) / 2
	}
}

// repeat calls once warmup+n times and returns the results of the last n.
func repeat[T any](n int, once func() (T, error)) ([]T, error) {
	if _, err := once(); err != nil {
		return nil, fmt.Errorf("warm-up run: %w", err)
	}
	out := make([]T, 0, n)
	for i := range n {
		r, err := once()
		if err != nil {
			return nil, fmt.Errorf("run %d: %w", i+1, err)
		}
		out = append(out, r)
	}
	return out, nil
}

// buildCoder builds ./cmd/coder into dir as .goreleaser.yaml builds a
// release (static, trimmed, stripped), drops it from the page cache
// (fromDisk) and returns the binary's path. A build linked against the C
// library starts ~14% slower; the releases are what people run.
func buildCoder(modRoot, dir string) (string, error) {
	return buildStatic(modRoot, "./cmd/coder", filepath.Join(dir, "coder"))
}

// buildStatic builds package pkg of the module at modRoot into bin as a
// release is built, and drops bin from the page cache.
func buildStatic(modRoot, pkg, bin string) (string, error) {
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags=-s -w", "-o", bin, pkg)
	cmd.Dir = modRoot
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("go build %s: %w\n%s", pkg, err, out)
	}
	if err := fromDisk(bin); err != nil {
		return "", fmt.Errorf("dropping %s from the page cache: %w", bin, err)
	}
	return bin, nil
}

// buildFloor builds ./cmd/coder-bench/nsfloor into dir and checks that it
// runs here: "" when it cannot (not Linux, no user namespaces), with why.
func buildFloor(modRoot, dir string) (string, string) {
	if runtime.GOOS != "linux" {
		return "", "nsfloor needs Linux namespaces"
	}
	bin, err := buildStatic(modRoot, "./cmd/coder-bench/nsfloor", filepath.Join(dir, "nsfloor"))
	if err != nil {
		return "", err.Error()
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return "", "true is not on PATH"
	}
	if out, err := exec.Command(bin, truePath).CombinedOutput(); err != nil {
		return "", fmt.Sprintf("nsfloor cannot make namespaces here: %v: %s", err, strings.TrimSpace(string(out)))
	}
	return bin, ""
}

// benchLine is one result line of `go test -bench`: unit → value.
type benchLine map[string]float64

// goBench runs `go test -run '^$' -bench pattern` in pkg count times and
// returns each benchmark's result lines by name (without the -GOMAXPROCS
// suffix).
func goBench(modRoot, pkg, pattern, benchtime string, count int, env ...string) (map[string][]benchLine, error) {
	cmd := exec.Command("go", "test", "-run", "^$", "-bench", pattern, "-benchtime", benchtime,
		"-count", strconv.Itoa(count), pkg)
	cmd.Dir = modRoot
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("go test -bench %s %s: %w\n%s", pattern, pkg, err, out)
	}
	return parseBench(out), nil
}

// parseBench reads lines such as
//
//	BenchmarkLoad5000-2   10   23456789 ns/op   123 B/op   7 allocs/op
func parseBench(out []byte) map[string][]benchLine {
	res := map[string][]benchLine{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 4 || !strings.HasPrefix(f[0], "Benchmark") {
			continue
		}
		name := f[0]
		if i := strings.LastIndexByte(name, '-'); i > 0 {
			if _, err := strconv.Atoi(name[i+1:]); err == nil {
				name = name[:i]
			}
		}
		line := benchLine{}
		for i := 2; i+1 < len(f); i += 2 {
			if v, err := strconv.ParseFloat(f[i], 64); err == nil {
				line[f[i+1]] = v
			}
		}
		res[name] = append(res[name], line)
	}
	return res
}

// benchMedian is the median of unit over a benchmark's result lines.
func benchMedian(res map[string][]benchLine, name, unit string) (float64, []float64, error) {
	var xs []float64
	for _, l := range res[name] {
		if v, ok := l[unit]; ok {
			xs = append(xs, v)
		}
	}
	if len(xs) == 0 {
		return 0, nil, fmt.Errorf("%s: no %s in the output (skipped?)", name, unit)
	}
	return median(xs), xs, nil
}
