package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseBench(t *testing.T) {
	t.Parallel()
	out := []byte(`goos: linux
BenchmarkLoad5000-2   	      10	  19026745 ns/op	 4401526 B/op	   68089 allocs/op
BenchmarkLoad5000-2   	      10	  14177706 ns/op	 4401502 B/op	   68089 allocs/op
BenchmarkTurn20Steps-2   	 20	  10861720 ns/op	    517225 ns/model-call	 33.55 peak-RSS-MB
BenchmarkGrepGoSrcRg   	       3	  90262130 ns/op	       164.0 matches
--- SKIP: BenchmarkOther
PASS
`)
	res := parseBench(out)
	if got, _, err := benchMedian(res, "BenchmarkLoad5000", "ns/op"); err != nil || got != (19026745+14177706)/2.0 {
		t.Errorf("Load5000 ns/op = %v, %v", got, err)
	}
	if got, _, err := benchMedian(res, "BenchmarkTurn20Steps", "ns/model-call"); err != nil || got != 517225 {
		t.Errorf("Turn20Steps ns/model-call = %v, %v", got, err)
	}
	if got, _, err := benchMedian(res, "BenchmarkGrepGoSrcRg", "matches"); err != nil || got != 164 {
		t.Errorf("GrepGoSrcRg matches = %v, %v", got, err)
	}
	if _, _, err := benchMedian(res, "BenchmarkOther", "ns/op"); err == nil {
		t.Error("a skipped benchmark has no result, want an error")
	}
}

func TestMedian(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   []float64
		want float64
	}{{nil, 0}, {[]float64{3}, 3}, {[]float64{5, 1, 3}, 3}, {[]float64{4, 1, 3, 2}, 2.5}} {
		if got := median(c.in); got != c.want {
			t.Errorf("median(%v) = %v, want %v", c.in, got, c.want)
		}
	}
}

func TestCompareFlagsRegressionsOnly(t *testing.T) {
	t.Parallel()
	base := &Results{Metrics: []Metric{
		{Name: "a", Label: "a", Unit: "ms", Value: 10},
		{Name: "b", Label: "b", Unit: "ms", Value: 10},
		{Name: "n", Label: "n", Value: 10, Info: true},
		{Name: "gone", Label: "gone", Unit: "ms", Value: 1},
	}}
	cur := &Results{Metrics: []Metric{
		{Name: "a", Label: "a", Unit: "ms", Value: 12},              // 1.2: within 1.25
		{Name: "n", Label: "n", Value: 20, Info: true},              // a count: never a regression
		{Name: "new", Label: "new", Unit: "ms", Value: 5},           // not in the baseline
		{Name: "b", Label: "b", Unit: "ms", Value: 13, Info: false}, // 1.3: a regression
	}}
	var out strings.Builder
	if !compare(&out, cur, base, 1.25) {
		t.Fatalf("b grew 1.3×, want a regression:\n%s", out.String())
	}
	for _, want := range []string{"| b | 10 ms | 13 ms | 1.30 | **REGRESSION**", "| a | 10 ms | 12 ms | 1.20 |  |",
		"| n | 10 | 20 | 2.00 |  |", "| new | — | 5.00 ms | — | new |", "| gone | 1.00 ms | — | — | not measured"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	cur.Metrics[3].Value = 12
	if compare(&strings.Builder{}, cur, base, 1.25) {
		t.Error("nothing grew over 1.25×, want no regression")
	}
}

func TestJSONRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "r.json")
	r := &Results{Time: "t", Metrics: []Metric{{Name: "hi.wall", Unit: "s", Value: 0.02, Goal: &Goal{"<=", 0.05}}}}
	if err := writeJSON(path, r); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"op": "<="`) {
		t.Errorf("goal operator escaped:\n%s", data)
	}
	got, err := readJSON(path)
	if err != nil || len(got.Metrics) != 1 || got.Metrics[0].Goal.Value != 0.05 {
		t.Fatalf("read back %+v, %v", got, err)
	}
}

func TestCountRgMatchesSkipsBinaryFiles(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "rg.json")
	lines := `{"type":"begin","data":{"path":{"text":"a.go"}}}
{"type":"match","data":{"path":{"text":"a.go"},"lines":{"text":"x\n"},"line_number":1}}
{"type":"match","data":{"path":{"text":"a.go"},"lines":{"text":"x\n"},"line_number":4}}
{"type":"end","data":{"path":{"text":"a.go"},"binary_offset":null}}
{"type":"begin","data":{"path":{"text":"b.bin"}}}
{"type":"match","data":{"path":{"text":"b.bin"},"lines":{"text":"x\n"},"line_number":1}}
{"type":"end","data":{"path":{"text":"b.bin"},"binary_offset":120}}
{"type":"summary","data":{}}
`
	if err := os.WriteFile(path, []byte(lines), 0o644); err != nil {
		t.Fatal(err)
	}
	if n, err := countRgMatches(path); err != nil || n != 2 {
		t.Fatalf("countRgMatches = %d, %v; want 2", n, err)
	}
}
