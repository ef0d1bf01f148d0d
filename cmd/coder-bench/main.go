// Command coder-bench measures coder against the goals of issue 9 and the
// figures measured for other agents: it builds ./cmd/coder, runs headless
// scenarios through the binary against the scripted fake LLM server
// (in-process), runs the go test micro-benchmarks, prints a Markdown table
// and saves the results as JSON to compare a later run against.
//
//	go run ./cmd/coder-bench                               # from the module root
//	go run ./cmd/coder-bench -baseline bench/baseline.json -fail-on-regress
//
// See bench/README.md for the metrics.
package main

import (
	"flag"
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

type options struct {
	n             int
	jsonPath      string
	baseline      string
	maxRatio      float64
	failOnRegress bool
	only          map[string]bool
	// vs is a git revision (or a coder binary) to compare hi and tool3
	// with, paired; codex is a Codex CLI binary to compare them with.
	vs, codex string
}

// groups are the parts of the suite, in the order they run ("vs" and
// "codex" only with -vs and -codex).
var groups = []string{"version", "hi", "tool3", "resume", "sandbox", "calls", "kept", "vs", "codex", "load", "turn", "grep"}

// vsGoals are issue 32's ratios against the commit before the sandbox.
var vsGoals = map[string]float64{"hi": 1.1, "tool3": 1.25}

func main() {
	var o options
	var only string
	flag.IntVar(&o.n, "n", 7, "measured runs per scenario (after one discarded warm-up run); the median is reported")
	flag.StringVar(&o.jsonPath, "json", "bench/last.json", "write the results here (empty: don't)")
	flag.StringVar(&o.baseline, "baseline", "", "compare with the results saved in this JSON file")
	flag.Float64Var(&o.maxRatio, "max-ratio", 1.25, "current/baseline above this is a regression")
	flag.BoolVar(&o.failOnRegress, "fail-on-regress", false, "exit 1 when a metric regressed against -baseline")
	flag.StringVar(&only, "only", strings.Join(groups, ","), "comma-separated parts to run: "+strings.Join(groups, ","))
	flag.StringVar(&o.vs, "vs", "", "git revision (or coder binary) to compare hi and tool3 with, runs paired (e.g. b89c051)")
	flag.StringVar(&o.codex, "codex", "", "Codex CLI binary to compare hi and tool3 with, runs paired")
	flag.Parse()
	o.only = map[string]bool{}
	for g := range strings.SplitSeq(only, ",") {
		if !slices.Contains(groups, g) {
			fmt.Fprintf(os.Stderr, "coder-bench: unknown part %q (want %s)\n", g, strings.Join(groups, ","))
			os.Exit(2)
		}
		o.only[g] = true
	}
	if o.n < 1 {
		fmt.Fprintln(os.Stderr, "coder-bench: -n must be at least 1")
		os.Exit(2)
	}
	os.Exit(run(o))
}

func run(o options) int {
	modRoot, err := moduleRoot()
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-bench:", err)
		return 1
	}
	tmp, err := os.MkdirTemp("", "coder-bench-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-bench:", err)
		return 1
	}
	defer os.RemoveAll(tmp)
	// Read before building: the build itself raises the load average.
	load := loadAverage()
	if load > float64(runtime.NumCPU())/2 {
		progress("warning: load average %.2f on %d CPUs: other work will inflate the figures", load, runtime.NumCPU())
	}
	progress("building ./cmd/coder")
	bin, err := buildCoder(modRoot, tmp)
	if err != nil {
		fmt.Fprintln(os.Stderr, "coder-bench:", err)
		return 1
	}
	// One runtime dir for every run, as a user's: the first run of a binary
	// probes the sandbox, the others read what it found.
	probeCache = filepath.Join(tmp, "run")
	if err := os.Mkdir(probeCache, 0o700); err != nil {
		fmt.Fprintln(os.Stderr, "coder-bench:", err)
		return 1
	}
	var base string
	if o.vs != "" && o.only["vs"] {
		progress("building the base revision %s", o.vs)
		if base, err = baseBinary(modRoot, o.vs, tmp); err != nil {
			fmt.Fprintln(os.Stderr, "coder-bench:", err)
			return 1
		}
	}
	res := measure(o, modRoot, bin, base)
	res.Load = load

	writeTable(os.Stdout, res)
	for _, e := range res.Errors {
		fmt.Fprintln(os.Stderr, "coder-bench: FAILED:", e)
	}
	if o.jsonPath != "" {
		if err := writeJSON(o.jsonPath, res); err != nil {
			fmt.Fprintln(os.Stderr, "coder-bench:", err)
			return 1
		}
		progress("results written to %s", o.jsonPath)
	}
	code := 0
	if len(res.Errors) > 0 {
		code = 1
	}
	if o.baseline != "" {
		base, err := readJSON(o.baseline)
		if err != nil {
			fmt.Fprintln(os.Stderr, "coder-bench: baseline:", err)
			return 1
		}
		fmt.Printf("\nAgainst %s (%s):\n\n", o.baseline, base.Time)
		if compare(os.Stdout, res, base, o.maxRatio) && o.failOnRegress {
			code = 1
		}
	}
	return code
}

// measure runs the parts of the suite o selects.
func measure(o options, modRoot, bin, base string) *Results {
	res := &Results{Time: time.Now().UTC().Format(time.RFC3339), Go: runtime.Version(),
		OS: runtime.GOOS + "/" + runtime.GOARCH, CPUs: runtime.NumCPU(), Runs: o.n}
	if out, err := exec.Command("git", "-C", modRoot, "rev-parse", "--short", "HEAD").Output(); err == nil {
		res.Head = strings.TrimSpace(string(out))
	}
	if fi, err := os.Stat(bin); err == nil {
		res.add(Metric{Name: "build.binary", Label: "binary size", Unit: "MB", Value: mb(fi.Size())})
	}
	if o.only["version"] {
		progress("version: %d runs of coder --version", o.n+1)
		got, err := versionMetrics(bin, o.n)
		res.collect("version", got, err)
	}
	for _, sc := range scenarios() {
		if o.only[sc.name] {
			progress("%s: %d runs through the binary", sc.name, o.n+1)
			got, err := scenarioMetrics(bin, sc, o.n)
			res.collect(sc.name, got, err)
		}
	}
	if o.only["sandbox"] {
		floor, why := buildFloor(modRoot, filepath.Dir(bin))
		if why != "" {
			progress("sandbox: no floor: %s", why)
		}
		progress("sandbox: %d rounds of coder sandbox -- true, bash -c true and nsfloor true", o.n+1)
		got, err := sandboxMetrics(bin, floor, o.n)
		res.collect("sandbox", got, err)
	}
	if o.only["calls"] {
		progress("calls: %d rounds of a %d-call turn with the sandbox on and off, and bash -c true", o.n+1, callsN)
		got, err := callsMetrics(bin, o.n)
		res.collect("calls", got, err)
	}
	if o.only["kept"] {
		progress("kept: BenchmarkSetup (internal/sandbox)")
		got, err := keptMetrics(modRoot, o.n)
		res.collect("kept", got, err)
	}
	if base != "" {
		got, err := vsMetrics(bin, base, o.n, vsGoals)
		res.collect("vs", got, err)
	}
	if o.codex != "" && o.only["codex"] {
		got, err := codexMetrics(bin, o.codex, o.n)
		res.collect("codex", got, err)
	}
	if o.only["load"] {
		progress("load: BenchmarkLoad5000 (internal/session)")
		d, err := measureLoad5000(modRoot, o.n)
		res.collect("load", []Metric{{Name: "resume.load5000", Label: "resume: load 5,000 messages (BenchmarkLoad5000)",
			Unit: "ms", Value: ms(d), Goal: &Goal{"<", 100}}}, err)
	}
	if o.only["turn"] {
		progress("turn: BenchmarkTurn20Steps (internal/orchestrator)")
		d, err := measureTurn20(modRoot, o.n)
		res.collect("turn", []Metric{{Name: "orchestrator.step", Label: "orchestrator: time per model call (BenchmarkTurn20Steps)",
			Unit: "ms", Value: ms(d), Goal: &Goal{"<", 1}}}, err)
	}
	if o.only["grep"] {
		progress("grep: GrepGoSrc benchmarks (internal/tools) and rg on $(go env GOROOT)/src")
		got, err := grepMetrics(modRoot, o.n)
		res.collect("grep", got, err)
	}
	return res
}

// scenarioMetrics runs sc n times after a warm-up and returns the medians.
func scenarioMetrics(bin string, sc scenario, n int) ([]Metric, error) {
	runs, err := repeat(n, func() (runStats, error) { return runScenario(bin, sc) })
	if err != nil {
		return nil, err
	}
	var wall, rss, first, total, tools []float64
	for _, r := range runs {
		wall = append(wall, r.wall.Seconds())
		rss = append(rss, mb(r.rssBytes))
		first = append(first, kb(r.firstBytes))
		total = append(total, kb(r.totalBytes))
		tools = append(tools, float64(len(r.tools)))
	}
	p := sc.name
	wallM := Metric{Name: p + ".wall", Label: p + ": wall time", Unit: "s", Value: median(wall), Runs: wall, Min: slices.Min(wall)}
	rssM := Metric{Name: p + ".rss", Label: p + ": max RSS", Unit: "MB", Value: median(rss), Runs: rss, Min: slices.Min(rss)}
	firstM := Metric{Name: p + ".first_request", Label: p + ": first request", Unit: "KB", Value: median(first)}
	switch p {
	case "hi":
		wallM.Goal = &Goal{"<=", 0.05}
	case "tool3":
		wallM.Goal = &Goal{"<=", 0.08}
	case "resume":
		wallM = Metric{Name: p + ".wall", Label: "resume: wall time of `--resume ID -p hi` (5,000 messages)",
			Unit: "ms", Value: median(wall) * 1000, Min: slices.Min(wall) * 1000, Goal: &Goal{"<", 100}}
		for _, w := range wall {
			wallM.Runs = append(wallM.Runs, w*1000)
		}
	}
	if p != "resume" {
		rssM.Goal, firstM.Goal = &Goal{"<=", 25}, &Goal{"<=", 12}
	}
	return []Metric{wallM, rssM, firstM,
		{Name: p + ".total_request", Label: p + ": all requests", Unit: "KB", Value: median(total)},
		{Name: p + ".tools", Label: p + ": tools offered", Value: median(tools), Info: true},
	}, nil
}

func grepMetrics(modRoot string, n int) ([]Metric, error) {
	g, err := measureGrep(modRoot, n)
	if err != nil {
		return nil, err
	}
	// rg is the faster of the two rg figures, so noise cannot flatter the
	// built-in walker.
	rg := min(g.rgCLI, g.rgBackend)
	ratio := float64(g.builtin) / float64(rg)
	return []Metric{
		{Name: "grep.builtin", Label: "grep Go src: built-in walker", Unit: "ms", Value: ms(g.builtin)},
		{Name: "grep.rg_backend", Label: "grep Go src: rg backend (rg --json + parsing)", Unit: "ms", Value: ms(g.rgBackend)},
		{Name: "grep.rg", Label: "grep Go src: rg alone", Unit: "ms", Value: ms(g.rgCLI), Info: true},
		{Name: "grep.ratio", Label: "grep Go src: built-in / rg (the faster rg figure)", Unit: "×", Value: ratio, Goal: &Goal{"<=", 1.5}},
		{Name: "grep.matches", Label: "grep Go src: matching lines (equal in all three)", Value: float64(g.rgMatches), Info: true},
	}, nil
}

func (r *Results) add(m Metric) { r.Metrics = append(r.Metrics, m) }

// collect adds got, or records why part could not be measured.
func (r *Results) collect(part string, got []Metric, err error) {
	if err != nil {
		r.Errors = append(r.Errors, part+": "+err.Error())
		return
	}
	r.Metrics = append(r.Metrics, got...)
}

// moduleRoot is the directory of the main module's go.mod, where ./cmd/coder
// and the benchmark packages are.
func moduleRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOMOD: %w", err)
	}
	gomod := strings.TrimSpace(string(out))
	if gomod == "" || gomod == os.DevNull {
		return "", fmt.Errorf("not inside a Go module: run coder-bench from the coder repository")
	}
	return filepath.Dir(gomod), nil
}

// loadAverage is the 1-minute load average (Linux), 0 when unknown.
func loadAverage() float64 {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0
	}
	f := strings.Fields(string(data))
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v
}

func progress(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "coder-bench: "+format+"\n", args...)
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
func mb(b int64) float64         { return float64(b) / (1 << 20) }
func kb(b int) float64           { return float64(b) / (1 << 10) }
