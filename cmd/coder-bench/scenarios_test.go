package main

import (
	"testing"
)

// TestScenariosRunOnce runs every whole-process scenario once through a
// freshly built binary, so a product change that breaks a scenario's script
// fails here rather than in the middle of a benchmark run.
func TestScenariosRunOnce(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and runs coder")
	}
	root, err := moduleRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin, err := buildCoder(root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scenarios() {
		t.Run(sc.name, func(t *testing.T) {
			st, err := runScenario(bin, sc)
			if err != nil {
				t.Fatal(err)
			}
			if st.firstBytes == 0 || len(st.tools) == 0 || st.rssBytes == 0 || st.wall <= 0 {
				t.Fatalf("implausible figures: %+v", st)
			}
			t.Logf("%s: %v, %d KB RSS, first request %d bytes offering %v", sc.name, st.wall, st.rssBytes>>10, st.firstBytes, st.tools)
		})
	}
	// The parts measured around the scenarios: --version, the sandbox
	// against bash, paired, and the calls of a session. Differences of two
	// runs may come out negative on a busy machine.
	signed := map[string]bool{"sandbox.over": true, "sandbox.over_goal": true, "calls.per_call": true, "calls.per_call_vs_bash": true, "calls.sandbox_added": true}
	floor, why := buildFloor(root, t.TempDir())
	if why != "" {
		t.Logf("no floor: %s", why)
	}
	for name, measure := range map[string]func(string, int) ([]Metric, error){
		"version": versionMetrics,
		"sandbox": func(bin string, n int) ([]Metric, error) { return sandboxMetrics(bin, floor, n) },
		"calls":   callsMetrics,
	} {
		t.Run(name, func(t *testing.T) {
			ms, err := measure(bin, 1)
			if err != nil {
				t.Fatal(err)
			}
			for _, m := range ms {
				if m.Value <= 0 && !signed[m.Name] || len(m.Runs) != 1 {
					t.Errorf("implausible %s: %+v", m.Name, m)
				}
				t.Logf("%s: %s", m.Label, format(m.Value, m.Unit))
			}
		})
	}
}
