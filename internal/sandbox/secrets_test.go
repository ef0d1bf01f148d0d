//go:build unix

package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestDenyReadPathsAreUnreadable: the fake home's ssh key and netrc cannot
// be read, listed or copied; other files in the home can (positive control).
func TestDenyReadPathsAreUnreadable(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	p := w.profile(LevelFull)
	for _, script := range []string{
		`cat ~/.ssh/id_ed25519`, `cat ~/.ssh/id_*`, `ls -la ~/.ssh`, `cat ~/.netrc`, `cp -r ~/.ssh ssh-copy; cat ssh-copy/*`,
		`tar -cf - ~/.ssh 2>/dev/null | strings`, `grep -r SECRET ~ 2>/dev/null`, `find ~ -type f -exec cat {} +`,
		`python3 -c 'print(open("` + filepath.Join(w.home, ".ssh/id_ed25519") + `").read())'`,
	} {
		r := run(t, p, script)
		if strings.Contains(r.stdout+r.stderr, "SECRET") {
			t.Errorf("%s revealed a secret: %+v", script, r)
		}
	}
	if r := run(t, p, `cat ~/.bashrc`); r.stdout != "# rc\n" {
		t.Errorf("positive control: reading the home's .bashrc: %+v", r)
	}
	// Outside the sandbox the files are intact.
	if b, _ := os.ReadFile(filepath.Join(w.home, ".ssh/id_ed25519")); string(b) != "SECRET-SSH-KEY\n" {
		t.Errorf("the key file changed: %q", b)
	}
}

// TestProcessEnvironmentsHideSecrets: a secret in this process's
// environment (coder's, in real life) shows in no /proc/*/environ the
// command can read, nor in its own environment; a harmless planted
// variable does show, so the reading itself works.
func TestProcessEnvironmentsHideSecrets(t *testing.T) {
	const secret = "sk-planted-SECRET-4c1d2e"
	t.Setenv("CODER_TEST_API_KEY", secret)
	t.Setenv("CODER_TEST_INNOCENT", "Bearer "+secret) // known to coder by value only
	t.Setenv("CODER_TEST_VISIBLE", "visible-7b3a")
	w := newWorld(t)
	self := strconv.Itoa(os.Getpid())
	script := `for f in /proc/[0-9]*/environ /proc/self/environ /proc/` + self + `/environ; do cat "$f"; echo; done 2>&1 | tr '\0' '\n'; env; ps eww 2>/dev/null`
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			p := w.profile(l)
			p.Env, p.Secrets = nil, []string{secret} // this process's environment, secret included
			r := run(t, p, script)
			if strings.Contains(r.stdout+r.stderr, secret) {
				t.Fatalf("the secret leaked:\n%s", r.stdout+r.stderr)
			}
			if !strings.Contains(r.stdout, "visible-7b3a") {
				t.Fatalf("positive control: the planted variable is not visible:\n%s", r.stdout)
			}
		})
	}
}

func gitRepo(t *testing.T, dir string) {
	t.Helper()
	for _, args := range [][]string{{"init", "-q"}, {"config", "user.name", "T"}, {"config", "user.email", "t@example.com"}} {
		if out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	writeTestFile(t, filepath.Join(dir, ".git/hooks/post-commit"), "#!/bin/sh\n")
	writeTestFile(t, filepath.Join(dir, ".coder/config.json"), "{}\n")
	writeTestFile(t, filepath.Join(dir, ".coder/commands/x.md"), "x\n")
	writeTestFile(t, filepath.Join(dir, ".mcp.json"), "{}\n")
}

// protectedAttacks try to change what would act outside the sandbox later.
var protectedAttacks = []string{
	`echo '[core] hooksPath = /tmp' >> .git/config`,
	`git config core.pager evil`,
	`git config --unset user.name`,
	`echo evil > .git/hooks/pre-commit && chmod +x .git/hooks/pre-commit`,
	`rm -rf .git/hooks`,
	`mv .git/hooks .git/hooks-old`,
	`rm -f .git/config`,
	`mv .git/config .git/config.bak`,
	`echo '{"permission":{"preset":"yolo"}}' > .coder/config.json`,
	`rm -rf .coder`,
	`mv .coder .coder-old`,
	`echo '{"mcpServers":{"x":{"command":"evil"}}}' > .mcp.json`,
	`rm -f .mcp.json`,
	`ln -sf /tmp/evil .mcp.json`,
}

// TestProtectedPathsStayReadOnly: git's configuration and hooks, coder's
// settings and .mcp.json resist every attack, while git add and git commit
// work in the same workspace (positive control).
func TestProtectedPathsStayReadOnly(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	gitRepo(t, w.ws)
	p := w.profile(LevelFull)
	before := protectedHash(t, w.ws)
	for _, script := range protectedAttacks {
		r := run(t, p, script)
		if after := protectedHash(t, w.ws); after != before {
			t.Fatalf("%s changed a protected path: %+v", script, r)
		}
	}
	r := run(t, p, `echo change > file.txt && git add file.txt && git commit -qm sandboxed && git log --oneline | wc -l`)
	if r.code != 0 || strings.TrimSpace(r.stdout) != "1" {
		t.Fatalf("positive control: git add + commit in the workspace: %+v", r)
	}
}

// controlPaths are the control entries the tests attack.
var controlPaths = []string{".git/config", ".git/hooks", ".coder", ".mcp.json"}

// protectedHash fingerprints the control entries of a workspace (what the
// restore moved aside, kept beside, left out).
func protectedHash(t *testing.T, ws string) string {
	t.Helper()
	var b strings.Builder
	for _, rel := range controlPaths {
		b.WriteString(rel + "=" + treeHash(t, filepath.Join(ws, rel)) + "\n")
	}
	return b.String()
}

// TestPlanProfileKeepsTheWorkspaceReadOnly: in plan mode nothing in the
// workspace changes, even with a writable root above it; the private temp
// dir stays writable (positive control).
func TestPlanProfileKeepsTheWorkspaceReadOnly(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			w := newWorld(t)
			gitRepo(t, w.ws)
			p := w.profile(l)
			p.Policy = ReadOnly
			p.WritableRoots = append(p.WritableRoots, w.base) // holds the workspace
			before := treeHash(t, w.ws)
			for _, script := range []string{`touch new.txt`, `echo x > README`, `rm -f README`, `mkdir d`,
				`git add README && git commit -qm x`, `rm -rf ` + w.ws, `sed -i s/a/b/ README`} {
				r := run(t, p, script)
				if treeHash(t, w.ws) != before {
					t.Fatalf("%s changed the workspace in plan mode: %+v", script, r)
				}
			}
			if r := run(t, p, `echo scratch > "$TMPDIR/s" && cat "$TMPDIR/s"`); r.stdout != "scratch\n" {
				t.Fatalf("positive control: the private temp dir: %+v", r)
			}
		})
	}
}

// TestTheSandboxCannotBeUndoneFromInside: without capabilities and under
// Landlock, a command can neither remove nor remount the sandbox's mounts,
// not even from a user namespace of its own.
func TestTheSandboxCannotBeUndoneFromInside(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	gitRepo(t, w.ws)
	p := w.profile(LevelFull)
	cfg := filepath.Join(w.ws, ".git/config")
	before, beforeOut := protectedHash(t, w.ws), treeHash(t, w.outside)
	for _, script := range []string{
		`umount -l ` + cfg + `; echo evil >> ` + cfg,
		`umount -l /proc; cat /proc/*/environ`,
		`mount -o remount,rw,bind ` + w.outside + `; touch ` + w.outside + `/pwned`,
		`mount -o remount,rw /; touch ` + w.outside + `/pwned`,
		`mount --bind ` + w.ws + ` ` + w.outside + `; touch ` + w.outside + `/pwned`,
		`unshare -Urm sh -c 'umount -l ` + cfg + `; echo evil >> ` + cfg + `'`,
		`unshare -Urm sh -c 'mount -o remount,rw,bind ` + w.outside + `; touch ` + w.outside + `/pwned'`,
		`unshare -Ur sh -c 'touch ` + w.outside + `/pwned'`,
		`cd /proc/1/root` + w.outside + ` && touch pwned`,
		`ln ` + w.outside + `/keep hard && echo evil >> hard`,
	} {
		r := run(t, p, script)
		if protectedHash(t, w.ws) != before || treeHash(t, w.outside) != beforeOut {
			t.Fatalf("%s undid the sandbox: %+v", script, r)
		}
	}
	if r := run(t, p, `grep -c CapEff:.0000000000000000 /proc/self/status`); strings.TrimSpace(r.stdout) != "1" {
		t.Errorf("the command has capabilities: %+v", r)
	}
}

// TestGitWorktreeCommitsWork: in a linked worktree, git commit works in
// the sandbox (the main repository's git dir is writable) while its config
// and hooks stay protected; a forged .git pointer grants nothing.
func TestGitWorktreeCommitsWork(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	main := filepath.Join(w.base, "main")
	if err := os.Mkdir(main, 0o755); err != nil {
		t.Fatal(err)
	}
	gitRepo(t, main)
	writeTestFile(t, filepath.Join(main, "f"), "x")
	for _, args := range [][]string{{"add", "f"}, {"commit", "-qm", "first"}, {"worktree", "add", "-q", w.ws + "/wt", "-b", "wt"}} {
		if out, err := exec.Command("git", append([]string{"-C", main}, args...)...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	ws := filepath.Join(w.ws, "wt")
	rw := GitWorktree(ws)
	if len(rw) != 2 {
		t.Fatalf("worktree dirs = %q", rw)
	}
	p := w.profile(LevelFull)
	p.Workspace, p.WritableRoots, p.GitDirs = ws, append(p.WritableRoots, rw...), rw
	before := treeHash(t, filepath.Join(main, ".git/hooks")) + treeHash(t, filepath.Join(main, ".git/config"))
	r := run(t, p, `git config core.pager evil; echo x > .git/../../../main/.git/hooks/pre-commit; echo y > g && git add g && git commit -qm sandboxed && git log --oneline | wc -l`)
	if strings.TrimSpace(r.stdout) != "2" {
		t.Fatalf("commit in a worktree: %+v", r)
	}
	if treeHash(t, filepath.Join(main, ".git/hooks"))+treeHash(t, filepath.Join(main, ".git/config")) != before {
		t.Fatal("the main repository's config or hooks changed")
	}
	// A forged pointer, to a directory the model would like to write.
	forged := filepath.Join(w.ws, "forged")
	writeTestFile(t, filepath.Join(forged, ".git"), "gitdir: "+w.outside+"\n")
	writeTestFile(t, filepath.Join(w.outside, "gitdir"), filepath.Join(forged, ".git")+"\n")
	if rw := GitWorktree(forged); rw != nil {
		t.Fatalf("a forged .git file granted %q", rw)
	}
}

// TestDenyReadNeverHidesWhatTheCommandNeeds: a deny_read entry holding
// the temp dir or the workspace is not applied (the command could not
// work), and the profile says so; a narrower one still is.
func TestDenyReadNeverHidesWhatTheCommandNeeds(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	p := w.profile(LevelFull)
	p.DenyRead = []string{w.base, filepath.Join(w.home, ".ssh")}
	if got := p.Unenforced(); !slices.Equal(got, []string{w.base}) {
		t.Fatalf("Unenforced = %q", got)
	}
	r := run(t, p, `echo ok > "$TMPDIR/x" && cat "$TMPDIR/x" README; cat ~/.ssh/id_ed25519`)
	if !strings.HasPrefix(r.stdout, "ok\nworkspace\n") || strings.Contains(r.stdout, "SECRET") {
		t.Fatalf("%+v", r)
	}
}

// TestDevicesAreMinimal: /dev holds only harmless devices (no disks, no
// consoles: special files ignore read-only mounts), and they work.
func TestDevicesAreMinimal(t *testing.T) {
	needFull(t)
	w := newWorld(t)
	r := run(t, w.profile(LevelFull), `ls /dev | tr '\n' ' '; echo; echo x > /dev/null && head -c 4 /dev/urandom | wc -c && `+
		`touch /dev/evil; python3 -c 'import os; m, s = os.openpty(); print("pty", os.ttyname(s))' 2>&1`)
	want := "fd full null ptmx pts random shm stderr stdin stdout tty urandom zero \n4\n"
	if !strings.HasPrefix(r.stdout, want) {
		t.Fatalf("/dev in the sandbox: %+v", r)
	}
	if _, err := exec.LookPath("python3"); err == nil && !strings.Contains(r.stdout, "pty /dev/pts/0") {
		t.Errorf("no private pseudo-terminal: %+v", r)
	}
}
