package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Results is one run of coder-bench, as saved with -json and read back
// with -baseline.
type Results struct {
	Time string `json:"time"`
	Head string `json:"head,omitempty"` // git HEAD of the tree measured (uncommitted changes not shown)
	Go   string `json:"go"`
	OS   string `json:"os"`
	CPUs int    `json:"cpus"`
	// Load is the 1-minute load average when the run started: other work
	// on the machine slows every figure, so compare runs made at low load.
	Load    float64  `json:"load,omitempty"`
	Runs    int      `json:"runs"` // N per whole-process scenario
	Metrics []Metric `json:"metrics"`
	Errors  []string `json:"errors,omitempty"`
}

// Metric is one measured figure. Lower is better for every metric not
// marked Info; Info figures (counts) are shown but never a regression.
type Metric struct {
	Name  string    `json:"name"`
	Label string    `json:"label"`
	Unit  string    `json:"unit"`
	Value float64   `json:"value"`
	Goal  *Goal     `json:"goal,omitempty"`
	Info  bool      `json:"info,omitempty"`
	Runs  []float64 `json:"runs,omitempty"`
	// Min is the lowest run: a noisy machine only adds time, so when the
	// median is far above it the median was disturbed.
	Min float64 `json:"min,omitempty"`
}

// Goal is the figure issue 9 sets: Value must be Op ("<=" or "<") Goal.Value.
type Goal struct {
	Op    string  `json:"op"`
	Value float64 `json:"value"`
}

func (g *Goal) met(v float64) bool {
	if g.Op == "<" {
		return v < g.Value
	}
	return v <= g.Value
}

// peerNames and peers are the figures issue 9 measured for other agents
// (median of 5, 2 cores, a local scripted server), by metric name.
var peerNames = []string{"Crush", "Codex CLI", "Claude Code", "pi", "opencode"}

var peers = map[string][]string{
	"hi.wall":             {"0.22 s", "0.41 s", "1.01 s", "1.94 s", "7.30 s"},
	"tool3.wall":          {"0.32 s", "0.55 s", "1.26 s", "2.24 s", "8.50 s"},
	"hi.rss":              {"67–71 MB", "143–148 MB", "295 MB", "175 MB", "501–536 MB"},
	"tool3.rss":           {"67–71 MB", "143–148 MB", "295 MB", "175 MB", "501–536 MB"},
	"hi.first_request":    {"41.8 KB", "37.4 KB", "74.9 KB", "5.5 KB", "28.8 KB"},
	"tool3.first_request": {"41.8 KB", "37.4 KB", "74.9 KB", "5.5 KB", "28.8 KB"},
	"hi.tools":            {"18", "10", "24", "4", "9"},
	"tool3.tools":         {"18", "10", "24", "4", "9"},
}

// format prints v in its unit.
func format(v float64, unit string) string {
	switch unit {
	case "s":
		return fmt.Sprintf("%.3f s", v)
	case "ms":
		if v < 10 {
			return fmt.Sprintf("%.2f ms", v)
		}
		return fmt.Sprintf("%.0f ms", v)
	case "MB", "KB":
		return fmt.Sprintf("%.1f %s", v, unit)
	case "×":
		if v < 1 {
			return fmt.Sprintf("%.3f×", v)
		}
		return fmt.Sprintf("%.2f×", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// writeTable prints the Markdown table: goal, measured figure, verdict and
// the peers' figures.
func writeTable(w io.Writer, r *Results) {
	fmt.Fprintf(w, "| metric | goal | measured | verdict | %s |\n", strings.Join(peerNames, " | "))
	fmt.Fprintf(w, "|---|---|---|---|%s\n", strings.Repeat("---|", len(peerNames)))
	for _, m := range r.Metrics {
		goal, verdict := "—", "—"
		if m.Goal != nil {
			goal = strings.Replace(m.Goal.Op, "<=", "≤", 1) + " " + format(m.Goal.Value, m.Unit)
			verdict = "**not met**"
			if m.Goal.met(m.Value) {
				verdict = "met"
			}
		}
		ps := peers[m.Name]
		if ps == nil {
			ps = make([]string, len(peerNames))
			for i := range ps {
				ps[i] = "—"
			}
		}
		measured := format(m.Value, m.Unit)
		if len(m.Runs) > 1 {
			measured += " (min " + format(m.Min, m.Unit) + ")"
		}
		fmt.Fprintf(w, "| %s | %s | %s | %s | %s |\n", m.Label, goal, measured, verdict, strings.Join(ps, " | "))
	}
}

// compare prints current/baseline per metric and reports whether any
// non-Info metric grew by more than maxRatio.
func compare(w io.Writer, cur, base *Results, maxRatio float64) (regressed bool) {
	old, seen := map[string]Metric{}, map[string]bool{}
	for _, m := range base.Metrics {
		old[m.Name] = m
	}
	fmt.Fprintf(w, "| metric | baseline | current | ratio | |\n|---|---|---|---|---|\n")
	for _, m := range cur.Metrics {
		seen[m.Name] = true
		b, ok := old[m.Name]
		if !ok || b.Value == 0 {
			fmt.Fprintf(w, "| %s | — | %s | — | new |\n", m.Label, format(m.Value, m.Unit))
			continue
		}
		ratio := m.Value / b.Value
		flag := ""
		if !m.Info && ratio > maxRatio {
			flag, regressed = fmt.Sprintf("**REGRESSION** (> %.2f)", maxRatio), true
		}
		fmt.Fprintf(w, "| %s | %s | %s | %.2f | %s |\n", m.Label, format(b.Value, b.Unit), format(m.Value, m.Unit), ratio, flag)
	}
	for _, b := range base.Metrics {
		if !seen[b.Name] {
			fmt.Fprintf(w, "| %s | %s | — | — | not measured this time |\n", b.Label, format(b.Value, b.Unit))
		}
	}
	return regressed
}

func writeJSON(path string, r *Results) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false) // goals read "<=", not "\u003c="
	if err := enc.Encode(r); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, buf.Bytes(), 0o644)
}

func readJSON(path string) (*Results, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Results
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}
