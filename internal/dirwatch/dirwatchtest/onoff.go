// Package dirwatchtest helps the benchmarks of dirwatch's users compare a
// scan with inotify and without it in the same run (tests only).
package dirwatchtest

import "testing"

// ReportOnOff keeps the time per op of the run without inotify in offNS
// and reports the run with it as a ratio to that ("on/off"); run the off
// case first.
func ReportOnOff(b *testing.B, on bool, offNS *float64) {
	ns := float64(b.Elapsed().Nanoseconds()) / float64(b.N)
	if !on {
		*offNS = ns
	} else if *offNS > 0 {
		b.ReportMetric(ns / *offNS, "on/off")
	}
}
