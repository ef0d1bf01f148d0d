package sandbox

import (
	"os"
	"path/filepath"
	"testing"
)

// TestFullAccessRunsUnconfined: a profile's Policy alone decides the
// sandbox: the same write outside the writable places that WorkspaceWrite
// refuses at every level that confines writes (the control) succeeds with
// FullAccess, a person's leave to run a command outside the sandbox.
func TestFullAccessRunsUnconfined(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			target := filepath.Join(w.outside, "written")
			script := `echo x > "` + target + `"`
			p := w.profile(l)
			if r := run(t, p, script); r.code == 0 {
				t.Fatalf("WorkspaceWrite let a command write outside its places: %+v", r)
			}
			p.Policy = FullAccess
			if r := run(t, p, script); r.code != 0 {
				t.Fatalf("FullAccess: %+v", r)
			}
			if _, err := os.Stat(target); err != nil {
				t.Fatalf("FullAccess: %v", err)
			}
		})
	}
}
