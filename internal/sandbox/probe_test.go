package sandbox

import (
	"strings"
	"testing"
)

// TestProbeReportsEachLayer: the report names every layer, and at a level
// below full says why the missing ones are off.
func TestProbeReportsEachLayer(t *testing.T) {
	r := Probe()
	text := r.String()
	for _, name := range []string{"user namespace", "mount namespace", "PID namespace", "network namespace", "Landlock", "no_new_privs", "process containment"} {
		if !strings.Contains(text, name) {
			t.Errorf("report lacks %q:\n%s", name, text)
		}
	}
	for _, l := range r.Layers {
		if !l.Active && l.Detail == "" {
			t.Errorf("layer %s is off without a reason", l.Name)
		}
	}
	if (r.Level == LevelFull) != (r.Warning() == "") {
		t.Errorf("level %s, warning %q", r.Level, r.Warning())
	}
}

// TestForcedLevels: the test hook lowers the level, never raises it, and
// the report says it was forced.
func TestForcedLevels(t *testing.T) {
	best := Probe().Level
	for _, tt := range []struct {
		value string
		want  Level
	}{{"landlock", min(LevelLandlock, best)}, {"none", LevelNone}, {"full", best}} {
		t.Run(tt.value, func(t *testing.T) {
			t.Setenv(ForceLevelEnv, tt.value)
			r := probe()
			if r.Level != tt.want {
				t.Fatalf("level %s, want %s", r.Level, tt.want)
			}
			forced := tt.value != "full"
			if (r.Forced != "") != forced || forced && !strings.Contains(r.String(), "forced by "+ForceLevelEnv) {
				t.Errorf("forced %q:\n%s", r.Forced, r)
			}
			if r.Level == LevelNone && (r.LandlockABI != 0 || !strings.Contains(r.Warning(), "without an OS sandbox")) {
				t.Errorf("none: %+v %q", r, r.Warning())
			}
		})
	}
	t.Setenv(ForceLevelEnv, "bogus")
	if r := probe(); r.Level != best || !strings.Contains(r.String(), "ignored") {
		t.Errorf("a bad value: %s", r)
	}
}
