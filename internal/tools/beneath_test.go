//go:build linux

package tools

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
)

// TestWriteUnderADirectorySymlinkSwapper races the write tool against a
// process swapping a workspace directory for a symlink to a directory
// outside (renameat2 RENAME_EXCHANGE, as fast as it can). Whatever the
// interleaving, no file — written or temporary — may land outside; each
// write either lands in the workspace or fails.
func TestWriteUnderADirectorySymlinkSwapper(t *testing.T) {
	t.Parallel()
	ws := newWS(t)
	outside := t.TempDir()
	sub, link := filepath.Join(ws.Root, "sub"), filepath.Join(ws.Root, "link")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, link); err != nil {
		t.Fatal(err)
	}
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	wg.Go(func() {
		for !stop.Load() {
			if err := unix.Renameat2(unix.AT_FDCWD, sub, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE); err != nil {
				t.Errorf("swap: %v", err)
				return
			}
			swaps.Add(1)
		}
	})
	write := builtin(t, ws, "write")
	ok, failed := 0, 0
	for i := range 150 {
		res := call(t, write, map[string]any{"path": fmt.Sprintf("sub/f%d.txt", i), "content": "x\n"})
		if res.OK {
			ok++
		} else {
			failed++
		}
	}
	stop.Store(true)
	wg.Wait()
	entries, err := os.ReadDir(outside)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		t.Errorf("a write landed outside the workspace: %s", e.Name())
	}
	// Every file reported written is in the workspace (in whichever of the
	// two names the directory has now), and no temporary file remains.
	inside := 0
	for _, d := range []string{sub, link} {
		if fi, err := os.Lstat(d); err == nil && fi.IsDir() {
			es, _ := os.ReadDir(d)
			for _, e := range es {
				if strings.Contains(e.Name(), ".tmp-") {
					t.Errorf("a temporary file remains: %s", e.Name())
				}
				inside++
			}
		}
	}
	if inside != ok {
		t.Errorf("%d writes reported done, %d files in the workspace", ok, inside)
	}
	t.Logf("%d swaps; %d writes done, %d refused", swaps.Load(), ok, failed)
	if swaps.Load() == 0 {
		t.Fatal("the swapper never ran: the test proves nothing")
	}
}
