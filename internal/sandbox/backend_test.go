package sandbox

import (
	"runtime"
	"strings"
	"testing"
)

// Every platform coder is released for has a row in the backend table.
func TestBackendsCoverReleaseTargets(t *testing.T) {
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if _, ok := backends[goos]; !ok {
			t.Errorf("no sandbox backend for %s", goos)
		}
	}
	if runtime.GOOS == "linux" && currentBackend().probe != nil {
		t.Fatal("Linux must keep its own probe (namespaces, Landlock)")
	}
}

// Windows states level none, names the containment it has, and points to
// WSL, at start (Warning) and in coder doctor (String).
func TestWindowsReportStatesNoneAndWSL(t *testing.T) {
	r := probeWindows()
	if r.Level != LevelNone {
		t.Fatalf("level %s, want none", r.Level)
	}
	if w := r.Warning(); !strings.Contains(w, "sandbox: none") || !strings.Contains(w, "WSL") {
		t.Fatalf("warning %q does not state none and WSL", w)
	}
	if s := r.String(); !strings.Contains(s, "sandbox level: none") || !strings.Contains(s, "Job Object") {
		t.Fatalf("doctor report:\n%s", s)
	}
}

// Where sandbox-exec does not run (here: any system but macOS), the
// Seatbelt backend falls back to none and says why; forced off, it says so.
func TestSeatbeltProbeFallsBack(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("sandbox-exec exists on macOS")
	}
	r := probeSeatbelt()
	if r.Level != LevelNone || !strings.Contains(r.String(), "unavailable: "+SandboxExec) {
		t.Fatalf("without sandbox-exec: level %s\n%s", r.Level, r.String())
	}
	t.Setenv(ForceLevelEnv, "none")
	if r := probeSeatbelt(); r.Level != LevelNone || !strings.Contains(r.String(), "forced by "+ForceLevelEnv) {
		t.Fatalf("forced none:\n%s", r.String())
	}
}

// A Seatbelt report reads as the full level of its own backend, and a cap
// (sandbox.mode "off") turns its layers off but keeps containment.
func TestSeatbeltReportAndLimit(t *testing.T) {
	r := Report{Level: LevelFull, Backend: "Seatbelt", Layers: []Layer{
		{Name: "Seatbelt", Active: true, Detail: "on"}, {Name: "process containment", Active: true, Detail: "group"}}}
	if s := r.String(); !strings.HasPrefix(s, "sandbox level: full (Seatbelt)\n") || r.Warning() != "" {
		t.Fatalf("full Seatbelt report:\n%s\nwarning %q", s, r.Warning())
	}
	off := r.Limit(LevelNone, `sandbox.mode "off"`)
	if off.Level != LevelNone || off.Layers[0].Active || !off.Layers[1].Active || r.Layers[0].Active != true {
		t.Fatalf("limited report:\n%s", off.String())
	}
}
