package sandbox

import (
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// TestCommandGetsOnlyItsStandardStreams: a descriptor coder inherited
// without close-on-exec (here a directory opened by the test outside the
// sandbox, as a parent could hand coder) does not reach the sandboxed
// command at any level, where reading through it would pass the sandbox's
// mounts; the positive control: a command started without coder's helper
// gets it.
func TestCommandGetsOnlyItsStandardStreams(t *testing.T) {
	wd := newWorld(t)
	fd, err := syscall.Open(filepath.Join(wd.home, ".ssh"), syscall.O_RDONLY|syscall.O_DIRECTORY, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Close(fd) })
	list := `for f in /proc/$$/fd/*; do echo "fd ${f##*/}"; done`
	out, err := exec.Command("/bin/bash", "-c", list).Output()
	if err != nil || !strings.Contains(string(out), "fd "+strconv.Itoa(fd)+"\n") {
		t.Fatalf("control: a plain child did not inherit fd %d: %v %s", fd, err, out)
	}
	for _, l := range levels(t, LevelNone) {
		t.Run(l.String(), func(t *testing.T) {
			r := run(t, wd.profile(l), list+`; cat /proc/self/fd/`+strconv.Itoa(fd)+`/id_ed25519 2>/dev/null; true`)
			if strings.Contains(r.stdout, "fd "+strconv.Itoa(fd)+"\n") || strings.Contains(r.stdout, "SECRET") {
				t.Fatalf("the command got fd %d: %+v", fd, r)
			}
			if !strings.Contains(r.stdout, "fd 2\n") {
				t.Fatalf("control: the command's own descriptors were not listed: %+v", r)
			}
		})
	}
}
