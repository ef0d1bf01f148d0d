package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/sandbox/helper"
	"github.com/coder-agent/coder/internal/sandbox/terminal"
)

// A paired measurement runs two commands in turn (A B A B …, after one
// warm-up each) and takes the ratio pair by pair, so that a machine whose
// speed drifts during the run moves both sides of each ratio alike.

// pairedRuns runs a and b n times each, interleaved, after a warm-up run of
// each, and returns the measured runs.
func pairedRuns(n int, a, b func() (runStats, error)) (as, bs []runStats, err error) {
	runs, err := interleaved(n, a, b)
	if err != nil {
		return nil, nil, err
	}
	return runs[0], runs[1], nil
}

// interleaved runs each of fs n times, in turn (f0 f1 f2 f0 f1 f2 …),
// after a warm-up run of each, and returns each one's measured runs.
func interleaved(n int, fs ...func() (runStats, error)) ([][]runStats, error) {
	for i, f := range fs {
		if _, err := f(); err != nil {
			return nil, fmt.Errorf("warm-up run of command %d of %d: %w", i+1, len(fs), err)
		}
	}
	runs := make([][]runStats, len(fs))
	for r := range n {
		for i, f := range fs {
			st, err := f()
			if err != nil {
				return nil, fmt.Errorf("run %d of command %d of %d: %w", r+1, i+1, len(fs), err)
			}
			runs[i] = append(runs[i], st)
		}
	}
	return runs, nil
}

// pairRatios is a[i]/b[i] of the wall times; cpuRatios of the CPU times.
func pairRatios(as, bs []runStats) []float64 {
	out := make([]float64, len(as))
	for i := range as {
		out[i] = as[i].wall.Seconds() / bs[i].wall.Seconds()
	}
	return out
}

func cpuRatios(as, bs []runStats) []float64 {
	out := make([]float64, len(as))
	for i := range as {
		out[i] = as[i].cpu.Seconds() / max(bs[i].cpu.Seconds(), 1e-6)
	}
	return out
}

func walls(rs []runStats, scale float64) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = r.wall.Seconds() * scale
	}
	return out
}

func rsses(rs []runStats) []float64 {
	out := make([]float64, len(rs))
	for i, r := range rs {
		out[i] = mb(r.rssBytes)
	}
	return out
}

// runMetric is a metric over per-run values: the median, the runs, the min.
func runMetric(name, label, unit string, xs []float64, goal *Goal, info bool) Metric {
	return Metric{Name: name, Label: label, Unit: unit, Value: median(xs), Runs: xs, Min: slices.Min(xs), Goal: goal, Info: info}
}

// vsMetrics compares coder with the binary of another revision on the
// scenarios named by goals (scenario → the ratio it must stay under).
func vsMetrics(bin, base string, n int, goals map[string]float64) ([]Metric, error) {
	var out []Metric
	for _, sc := range scenarios() {
		goal, ok := goals[sc.name]
		if !ok {
			continue
		}
		progress("vs: %s, %d pairs against %s", sc.name, n+1, base)
		as, bs, err := pairedRuns(n, func() (runStats, error) { return runScenario(bin, sc) },
			func() (runStats, error) { return runScenario(base, sc) })
		if err != nil {
			return nil, fmt.Errorf("%s: %w", sc.name, err)
		}
		p := sc.name
		out = append(out,
			runMetric(p+".vs_base", p+": wall time / the base revision's, pair by pair", "×", pairRatios(as, bs), &Goal{"<=", goal}, false),
			runMetric(p+".vs_base_cpu", p+": CPU time / the base revision's, pair by pair", "×", cpuRatios(as, bs), nil, true),
			runMetric(p+".base_wall", p+": the base revision's wall time", "s", walls(bs, 1), nil, true))
	}
	return out, nil
}

// baseBinary returns the coder to compare with: rev itself when it names a
// file, else coder built from git revision rev of the repository (from
// `git archive`, so no worktree is left behind) into dir.
func baseBinary(modRoot, rev, dir string) (string, error) {
	if fi, err := os.Stat(rev); err == nil && !fi.IsDir() {
		return filepath.Abs(rev)
	}
	src := filepath.Join(dir, "base-src")
	if err := os.MkdirAll(src, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("git", "-C", modRoot, "archive", "--format=tar", rev)
	untar := exec.Command("tar", "-x", "-C", src)
	pipe, err := archive.StdoutPipe()
	if err != nil {
		return "", err
	}
	untar.Stdin = pipe
	var stderr strings.Builder
	archive.Stderr = &stderr
	if err := untar.Start(); err != nil {
		return "", err
	}
	if err := archive.Run(); err != nil {
		return "", fmt.Errorf("git archive %s: %w: %s", rev, err, stderr.String())
	}
	if err := untar.Wait(); err != nil {
		return "", fmt.Errorf("unpacking %s: %w", rev, err)
	}
	return buildCoder(src, dir+"/base")
}

// versionMetrics times `coder --version`.
func versionMetrics(bin string, n int) ([]Metric, error) {
	runs, err := repeat(n, func() (runStats, error) {
		p, err := runProc(bin, []string{"--version"}, os.TempDir(), os.Environ())
		if err == nil && (p.code != 0 || !strings.HasPrefix(p.stdout, "coder ")) {
			err = fmt.Errorf("coder --version: exit %d, %q", p.code, p.stdout)
		}
		return runStats{wall: p.wall, rssBytes: p.maxRSSBytes}, err
	})
	if err != nil {
		return nil, err
	}
	return []Metric{
		runMetric("version.wall", "version: wall time of `coder --version`", "ms", walls(runs, 1000), &Goal{"<=", 15}, false),
		runMetric("version.rss", "version: max RSS", "MB", rsses(runs), nil, false),
	}, nil
}

// sandboxMetrics compares `coder sandbox -- true` with `bash -c true` and
// with nsfloor (the least any Go program pays to start `true` in the
// sandbox's namespaces), run in turn in a fresh workspace (a git
// repository, as the scenarios use). The goal is 3× bash or 10 ms over it,
// whichever is larger. floor is nsfloor's path; empty (no user namespaces
// here): the floor is left out.
func sandboxMetrics(bin, floor string, n int) ([]Metric, error) {
	tmp, err := os.MkdirTemp("", "coder-bench-sandbox-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	ws, home := filepath.Join(tmp, "ws"), filepath.Join(tmp, "home")
	for _, d := range []string{ws, home} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := writeProject(ws); err != nil {
		return nil, err
	}
	env := coderEnv(home, "http://127.0.0.1:1/v1")
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, errors.New("bash is not on PATH")
	}
	truePath, err := exec.LookPath("true")
	if err != nil {
		return nil, errors.New("true is not on PATH")
	}
	run := func(path string, args ...string) func() (runStats, error) {
		return func() (runStats, error) {
			p, err := runProc(path, args, ws, env)
			if err == nil && p.code != 0 {
				err = fmt.Errorf("%s %v: exit %d\nstderr: %s", path, args, p.code, p.stderr)
			}
			return runStats{wall: p.wall, cpu: p.cpu, rssBytes: p.maxRSSBytes}, err
		}
	}
	// Two of the parts `coder sandbox -- true` is made of, each a whole
	// process of its own: coder's start (the packages before its entry in
	// sandbox/workspace's init initialised, the flags parsed, nothing set
	// up) and the helper with the command (coder
	// re-executed as the helper, without namespaces or Landlock: a
	// subreaper that starts `true` and waits for it). And what an editor's
	// terminal runs for a bash call: `true` in the sandbox of a profile,
	// with no configuration read and no guard around it.
	_, termArgs, _, err := terminal.Command(sandbox.Profile{Workspace: ws}, []string{truePath}) // run by bin, not this program
	if err != nil {
		return nil, err
	}
	cmds := []func() (runStats, error){run(bin, "sandbox", "--", "true"), run(bash, "-c", "true"),
		run(bin, "sandbox", "--help"), run(bin, helper.Arg, "mode="+helper.ModeContain, "--", truePath),
		run(bin, termArgs...)}
	if floor != "" {
		cmds = append(cmds, run(floor, truePath))
	}
	runs, err := interleaved(n, cmds...)
	if err != nil {
		return nil, err
	}
	as, bs, ss, hs, ts := runs[0], runs[1], runs[2], runs[3], runs[4]
	sb, bw := walls(as, 1000), walls(bs, 1000)
	// The goal (issue 32): 3× bash, or bash + 10 ms when that is more,
	// judged pair by pair: each pair's time over bash against what that
	// pair's bash allows. (The median ratio against the allowance of the
	// median bash mixed two medians: a pair with a quick bash reads a
	// large ratio for the same time over.)
	over, beyond := make([]float64, len(sb)), make([]float64, len(sb))
	for i := range sb {
		over[i] = sb[i] - bw[i]
		beyond[i] = over[i] - max(2*bw[i], 10)
	}
	out := []Metric{
		runMetric("sandbox.wall", "sandbox: wall time of `coder sandbox -- true`", "ms", sb, nil, false),
		runMetric("sandbox.bash", "sandbox: wall time of `bash -c true` (paired)", "ms", bw, nil, true),
		runMetric("sandbox.over", "sandbox: time over `bash -c true`, pair by pair", "ms", over, nil, true),
		runMetric("sandbox.over_goal", "sandbox: time over `bash -c true` beyond what the goal allows (3× bash or 10 ms over, the larger), pair by pair", "ms",
			beyond, &Goal{"<=", 0}, true),
		runMetric("sandbox.vs_bash", "sandbox: / `bash -c true`, pair by pair", "×", pairRatios(as, bs), nil, false),
		runMetric("sandbox.vs_bash_cpu", "sandbox: CPU time / `bash -c true`'s, pair by pair", "×", cpuRatios(as, bs), nil, true),
		runMetric("sandbox.start_vs_bash", "sandbox: coder's start alone (`coder sandbox --help`) / `bash -c true`, pair by pair", "×", pairRatios(ss, bs), nil, true),
		runMetric("sandbox.helper_vs_bash", "sandbox: the helper and `true` alone (`coder __sandbox-exec mode=contain -- true`) / `bash -c true`, pair by pair", "×", pairRatios(hs, bs), nil, true),
		runMetric("sandbox.terminal", "sandbox: wall time of what an editor's terminal runs for a bash call (`coder __sandbox-terminal PROFILE -- true`)", "ms", walls(ts, 1000), nil, true),
		runMetric("sandbox.terminal_vs_bash", "sandbox: the editor's terminal's `true` / `bash -c true`, pair by pair", "×", pairRatios(ts, bs), nil, true),
	}
	if floor != "" {
		fs := runs[5]
		out = append(out,
			runMetric("sandbox.floor", "sandbox: wall time of nsfloor: a Go program starting `true` in the sandbox's namespaces, nothing else", "ms", walls(fs, 1000), nil, true),
			runMetric("sandbox.floor_vs_bash", "sandbox: nsfloor / `bash -c true`, pair by pair (what no Go launcher goes below)", "×", pairRatios(fs, bs), nil, true),
			runMetric("sandbox.vs_floor", "sandbox: `coder sandbox -- true` / nsfloor, pair by pair (what coder adds over the floor)", "×", pairRatios(as, fs), nil, true))
	}
	return out, nil
}
