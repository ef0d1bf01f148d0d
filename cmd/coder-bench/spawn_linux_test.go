package main

import (
	"os/exec"
	"syscall"
	"testing"
)

// TestSpawnedRSSIsTheCommandsOwn: with coder-bench grown large, a command
// it starts itself reads at least coder-bench's size as its max RSS (the
// control), while one runProc starts reads its own, small one.
func TestSpawnedRSSIsTheCommandsOwn(t *testing.T) {
	const grown = 96 << 20
	ballast := make([]byte, grown)
	for i := range ballast {
		ballast[i] = 1
	}
	direct := exec.Command("true")
	if err := direct.Run(); err != nil {
		t.Fatal(err)
	}
	if rss := direct.ProcessState.SysUsage().(*syscall.Rusage).Maxrss << 10; rss < grown {
		t.Fatalf("control: a command started directly read %d MB, want at least coder-bench's %d MB (the kernel's accounting changed?)", rss>>20, grown>>20)
	}
	p, err := runProc("/bin/sh", []string{"-c", "exit 3"}, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.maxRSSBytes >= grown/2 || p.maxRSSBytes <= 0 {
		t.Errorf("spawned: max RSS %d MB, want sh's own few MB", p.maxRSSBytes>>20)
	}
	if p.code != 3 || p.wall <= 0 {
		t.Errorf("spawned: code %d wall %v, want 3 and a time", p.code, p.wall)
	}
	floor, err := runProc("/bin/true", nil, t.TempDir(), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("the spawner's floor: a bare true reads %.1f MB", float64(floor.maxRSSBytes)/(1<<20))
	ballast[0] = 2 // keep it alive through the runs
}
