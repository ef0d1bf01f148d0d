//go:build linux

package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRestoreNeverFollowsASwappedSymlink: a process swaps a directory the
// restore works in with a symlink to a directory outside (renameat2
// RENAME_EXCHANGE) as fast as it can, while the guard restores again and
// again: nothing outside is ever touched. (The same through the binary,
// 50 times: e2e TestRestoreRaceTouchesNothingOutside.)
func TestRestoreNeverFollowsASwappedSymlink(t *testing.T) {
	ws, outside := t.TempDir(), t.TempDir()
	for i := range 20 {
		writeTestFile(t, filepath.Join(outside, "Documents", "f"+string(rune('a'+i))), "keep\n")
	}
	before := treeHash(t, outside)
	gitRepo(t, ws)
	// At LevelFull an existing .mcp.json would be bound read-only: the
	// race is on one that did not exist.
	if err := os.Remove(filepath.Join(ws, ".mcp.json")); err != nil {
		t.Fatal(err)
	}
	for _, l := range []Level{LevelFull, LevelNone} {
		g, err := Watch(Profile{Workspace: ws, Level: l})
		if err != nil {
			t.Fatal(err)
		}
		var stop atomic.Bool
		swapping := make(chan struct{})
		var wg sync.WaitGroup
		wg.Add(1)
		go func() {
			defer wg.Done()
			// It writes only into directories it has just made, never
			// through a name it swaps: what reaches outside is the guard's.
			swap := func(a, link string) {
				a, link = filepath.Join(ws, a), filepath.Join(ws, link)
				if _, err := os.Lstat(a); err != nil && os.Mkdir(a, 0o755) == nil {
					_ = os.Mkdir(filepath.Join(a, "Documents"), 0o755)
					_ = os.WriteFile(filepath.Join(a, "Documents", "fa"), []byte("x"), 0o644)
				}
				if _, err := os.Lstat(link); err != nil {
					_ = os.Symlink(outside, link)
				}
				_ = unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE)
			}
			for i := 0; !stop.Load(); i++ {
				swap(".mcp.json", "lnk")
				swap(".git/hooks", "lnk2")
				if i == 0 {
					close(swapping)
				}
			}
		}()
		// The restores are quick (the scan's cache): they start once the
		// race has.
		<-swapping
		acted := 0
		for range 200 {
			c, _ := g.Restore()
			acted += len(c)
		}
		stop.Store(true)
		wg.Wait()
		g.Close()
		if treeHash(t, outside) != before {
			t.Fatalf("level %s: the restore touched the directory outside", l)
		}
		if acted == 0 {
			t.Fatalf("level %s: the restore never acted: the race was not run", l)
		}
	}
}

// TestRestoreIgnoresPlantedNames: below LevelFull a directory planted
// where the old restore put its temporary file (.git/config.coder-restore)
// no longer stops it, and what it replaces is kept beside, not deleted.
func TestRestoreIgnoresPlantedNames(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	cfg := filepath.Join(ws, ".git/config")
	want, _ := os.ReadFile(cfg)
	g, err := Watch(Profile{Workspace: ws, Level: LevelNone})
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(ws, ".git/config.coder-restore/x"), "planted")
	if err := os.WriteFile(cfg, []byte("[core]\n\tfsmonitor = /tmp/evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := g.Restore()
	if err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(want) {
		t.Fatalf("not restored: %q (%q)", got, changes)
	}
	aside := strings.TrimSuffix(strings.SplitAfter(changes[0], "now ")[1], ")")
	if b, _ := os.ReadFile(filepath.Join(ws, aside)); !strings.Contains(string(b), "fsmonitor") {
		t.Fatalf("the changed version was not kept beside at %s: %q", aside, changes)
	}
}

// TestGuardAtFullRevertsNothingTheCommandCouldNotWrite: at LevelFull the
// control entries that exist are read-only for commands, so a change to
// them during a call is the person's: kept and not reported. A control
// entry that appears in a writable place is moved aside.
func TestGuardAtFullRevertsNothingTheCommandCouldNotWrite(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	g, err := Watch(Profile{Workspace: ws, Level: LevelFull})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	// The person, in another terminal, meanwhile.
	if out, err := exec.Command("git", "-C", ws, "config", "user.name", "Person").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	writeTestFile(t, filepath.Join(ws, ".git/hooks/pre-commit"), "#!/bin/sh\n")
	writeTestFile(t, filepath.Join(ws, ".coder/config.json"), `{"model":"x"}`)
	// Where a command could write too.
	writeTestFile(t, filepath.Join(ws, ".git/commondir"), "../elsewhere\n")
	writeTestFile(t, filepath.Join(ws, "pkg/.mcp.json"), "{}")
	changes, err := g.Restore()
	if err != nil {
		t.Fatal(err)
	}
	if len(changes) != 2 || !strings.HasPrefix(changes[0], "moved .git/commondir aside") || !strings.HasPrefix(changes[1], "moved pkg/.mcp.json aside") {
		t.Fatalf("changes: %q", changes)
	}
	if out, _ := exec.Command("git", "-C", ws, "config", "user.name").Output(); strings.TrimSpace(string(out)) != "Person" {
		t.Errorf("the person's git config was reverted: %q", out)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/hooks/pre-commit")); err != nil {
		t.Errorf("the person's hook was removed: %v", err)
	}
}

// TestGuardPutsARenamedGitBack: below LevelFull a command can rename .git
// and plant a "gitdir:" file in its place: the file is moved aside and the
// repository put back.
func TestGuardPutsARenamedGitBack(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	g, err := Watch(Profile{Workspace: ws, Level: LevelNone})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if err := os.Rename(filepath.Join(ws, ".git"), filepath.Join(ws, ".g2")); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(ws, ".git"), "gitdir: .g2\n")
	writeTestFile(t, filepath.Join(ws, ".g2/config"), "[core]\n\tfsmonitor = evil\n")
	changes, err := g.Restore()
	if err != nil {
		t.Fatalf("%q: %v", changes, err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, ".git")); err != nil || !fi.IsDir() {
		t.Fatalf(".git not put back: %q", changes)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git/config")); strings.Contains(string(b), "fsmonitor") {
		t.Fatalf("its config not put back: %q", changes)
	}
}

// TestJournalRestoresAfterACoderThatDied: the baseline outlives a coder
// killed during a call; the next start puts back what changed in the
// window, and leaves what the person changed after it.
func TestJournalRestoresAfterACoderThatDied(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	gitRepo(t, ws)
	cfg := filepath.Join(ws, ".git/config")
	want, _ := os.ReadFile(cfg)
	g, err := WatchJournaled(Profile{Workspace: ws, Level: LevelNone}, dir)
	if err != nil {
		t.Fatal(err)
	}
	// Killed: the journal stays, its heartbeat stops.
	j := g.journal
	g.journal = nil
	dies(j)
	g.Close()
	if err := os.WriteFile(cfg, []byte("[core]\n\tfsmonitor = evil\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	// Its last heartbeat: just now, after the change (a slow machine may
	// have taken longer than a beat to get here).
	if err := os.Chtimes(j.path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(ws, "pkg/.mcp.json"), "{}")
	changes, err := RecoverJournals(dir, Profile{Workspace: ws})
	if err != nil || len(changes) != 2 {
		t.Fatalf("recover: %q %v", changes, err)
	}
	if got, _ := os.ReadFile(cfg); string(got) != string(want) {
		t.Fatalf(".git/config not put back: %q", got)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Fatalf("journal left: %v", left)
	}
	// One in a directory commands may write is neither kept nor read.
	inside := filepath.Join(ws, "journal")
	writeTestFile(t, filepath.Join(inside, journalPrefix(ws)+"1.json"), `{"workspace":"`+ws+`"}`)
	if _, err := RecoverJournals(inside, Profile{Workspace: ws}); err != ErrJournalWritable {
		t.Fatalf("a journal in the workspace was read: %v", err)
	}
	if g, err := WatchJournaled(Profile{Workspace: ws, Level: LevelNone}, inside); err != nil || g.journal != nil {
		t.Fatalf("a journal was kept in the workspace: %v", err)
	} else {
		g.Close()
	}

	// Positive control: what the person changes after the window stays.
	g, err = WatchJournaled(Profile{Workspace: ws, Level: LevelNone}, dir)
	if err != nil {
		t.Fatal(err)
	}
	j = g.journal
	g.journal = nil
	dies(j)
	g.Close()
	long := time.Now().Add(-time.Minute)
	if err := os.Chtimes(j.path, long, long); err != nil { // it died a minute ago
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(ws, ".mcp.json"), `{"mcpServers":{"mine":{}}}`)
	if changes, err := RecoverJournals(dir, Profile{Workspace: ws}); err != nil || len(changes) != 0 {
		t.Fatalf("a later change was undone: %q %v", changes, err)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".mcp.json")); !strings.Contains(string(b), "mine") {
		t.Fatalf("the person's .mcp.json: %q", b)
	}
}

// TestRestoreMovesAsideWhatIsTooLargeToRead: below LevelFull a hook too
// large for the guard to read, or a FIFO, planted among the hooks, is
// moved aside all the same; the restore never hangs on the FIFO.
func TestRestoreMovesAsideWhatIsTooLargeToRead(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	g, err := Watch(Profile{Workspace: ws, Level: LevelNone})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	big := filepath.Join(ws, ".git/hooks/pre-commit")
	if err := os.WriteFile(big, make([]byte, maxGuarded+1), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := unix.Mkfifo(filepath.Join(ws, ".git/hooks/pre-push"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ws, ".git/config"), make([]byte, maxGuarded+1), 0o644); err != nil {
		t.Fatal(err)
	}
	changes, err := g.Restore()
	if err != nil {
		t.Fatalf("%q %v", changes, err)
	}
	for _, f := range []string{".git/hooks/pre-commit", ".git/hooks/pre-push"} {
		if _, err := os.Lstat(filepath.Join(ws, f)); err == nil {
			t.Errorf("%s stayed (%q)", f, changes)
		}
	}
	if fi, _ := os.Stat(filepath.Join(ws, ".git/config")); fi == nil || fi.Size() > 1000 {
		t.Errorf(".git/config not put back (%q)", changes)
	}
}

// TestGuardLeavesAWorktreeAddedMeanwhile: a linked worktree added during
// a call (in another checkout of the repository, say) is left alone: only
// a new .git file could point at it, and that would be moved aside. A
// pointer changed in an existing worktree is not.
func TestGuardLeavesAWorktreeAddedMeanwhile(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	writeTestFile(t, filepath.Join(ws, "f"), "x")
	for _, args := range [][]string{{"add", "f"}, {"commit", "-qm", "x"}, {"worktree", "add", "-q", t.TempDir() + "/old", "-b", "old"}} {
		if out, err := exec.Command("git", append([]string{"-C", ws}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	g, err := Watch(Profile{Workspace: ws, Level: LevelFull})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if out, err := exec.Command("git", "-C", ws, "worktree", "add", "-q", t.TempDir()+"/new", "-b", "new").CombinedOutput(); err != nil {
		t.Fatalf("%v %s", err, out)
	}
	writeTestFile(t, filepath.Join(ws, ".git/worktrees/old/config.worktree"), "[core]\n\tfsmonitor = evil\n")
	changes, err := g.Restore()
	if err != nil || len(changes) != 1 || !strings.HasPrefix(changes[0], "moved .git/worktrees/old/config.worktree aside") {
		t.Fatalf("%q %v", changes, err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".git/worktrees/new/commondir")); err != nil {
		t.Fatal("the new worktree was broken")
	}
}

// dies leaves j as a coder killed outright leaves its journal: no longer
// refreshed, nor known as live.
func dies(j *journal) {
	close(j.stop)
	<-j.done
	liveJournals.Delete(filepath.Base(j.path))
}

// TestJournalsOfOneProcessAreKeptApart: two sessions of one process (an
// editor's threads) guard one workspace at once: each keeps its own
// journal, and the second's start does not take the first's for a dead
// coder's (positive control: once the first dies, it does).
func TestJournalsOfOneProcessAreKeptApart(t *testing.T) {
	ws, dir := t.TempDir(), t.TempDir()
	gitRepo(t, ws)
	p := Profile{Workspace: ws, Level: LevelNone}
	a, err := WatchJournaled(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	writeTestFile(t, filepath.Join(ws, "pkg/.mcp.json"), "{}") // a's task planted it
	b, err := WatchJournaled(p, dir)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if a.journal.path == b.journal.path {
		t.Fatalf("one journal for two guards: %s", a.journal.path)
	}
	if changes, err := RecoverJournals(dir, p); err != nil || len(changes) != 0 {
		t.Fatalf("a live session's journal was recovered: %q %v", changes, err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 2 {
		t.Fatalf("journals: %v", left)
	}
	j := a.journal
	a.journal = nil
	dies(j)
	a.Close()
	if err := os.Chtimes(j.path, time.Now(), time.Now()); err != nil {
		t.Fatal(err)
	}
	changes, err := RecoverJournals(dir, p)
	if err != nil || len(changes) != 1 || !strings.Contains(changes[0], "pkg/.mcp.json") {
		t.Fatalf("the dead session's journal: %q %v", changes, err)
	}
	if _, err := os.Stat(b.journal.path); err != nil {
		t.Fatalf("the live session's journal: %v", err)
	}
}

// TestGuardIsNotFooledByAReusedInode: a command replaces a control file
// (its inode number is freed) and creates new control files, one of which
// the file system gives the freed number. That one is new all the same,
// and moved aside with the others.
func TestGuardIsNotFooledByAReusedInode(t *testing.T) {
	ws := t.TempDir()
	gitRepo(t, ws)
	mcp := filepath.Join(ws, ".mcp.json")
	writeTestFile(t, mcp, "{}")
	old, err := os.Stat(mcp)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Watch(Profile{Workspace: ws, Level: LevelNone})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	const n = 20
	for i := range n {
		if err := os.Mkdir(filepath.Join(ws, fmt.Sprintf("p%d", i)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	writeTestFile(t, filepath.Join(ws, "new"), `{"mcpServers":{}}`)
	if err := os.Rename(filepath.Join(ws, "new"), mcp); err != nil { // the old inode is freed
		t.Fatal(err)
	}
	reused := ""
	for i := range n {
		p := filepath.Join(ws, fmt.Sprintf("p%d", i), ".mcp.json")
		writeTestFile(t, p, `{"mcpServers":{"x":{"command":"evil"}}}`)
		if fi, err := os.Stat(p); err == nil && os.SameFile(fi, old) {
			reused = p
		}
	}
	if reused == "" {
		t.Skip("this file system gave no new file the freed inode number")
	}
	if _, err := g.Restore(); err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if _, err := os.Lstat(filepath.Join(ws, fmt.Sprintf("p%d", i), ".mcp.json")); err == nil {
			t.Errorf("p%d/.mcp.json stayed (the reused inode: %s)", i, reused)
		}
	}
}
