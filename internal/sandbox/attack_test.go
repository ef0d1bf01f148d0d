//go:build unix

package sandbox

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// attack is one way a command might write where it may not. {DIR} is the
// target directory (holding a file "keep"); the attack tries to create
// {DIR}/pwned, or with removes, to delete {DIR}/keep. {TMP} is $TMPDIR.
type attack struct {
	name    string
	script  string
	needs   string // a program that must be installed
	removes bool
}

var attacks = []attack{
	{name: "redirect", script: `echo x > {DIR}/pwned`},
	{name: "append via exec fd", script: `exec 3>>{DIR}/pwned; echo x >&3`},
	{name: "tar -x -C", script: `echo x > {TMP}/pwned && tar -cf {TMP}/t.tar -C {TMP} pwned && tar -xf {TMP}/t.tar -C {DIR}`},
	{name: "sort -o", script: `echo x | sort -o {DIR}/pwned`},
	{name: "awk print to file", script: `awk 'BEGIN { print "x" > "{DIR}/pwned" }'`},
	{name: "sed w", script: `echo x | sed -n 'w {DIR}/pwned'`},
	{name: "dd of=", script: `echo x | dd of={DIR}/pwned status=none`},
	{name: "cp", script: `cp /etc/hostname {DIR}/pwned`},
	{name: "mv out of it", script: `mv {DIR}/keep {TMP}/stolen`, removes: true},
	{name: "rm -rf", script: `rm -rf {DIR}`, removes: true},
	{name: "python3 shutil.rmtree", script: `python3 -c 'import shutil; shutil.rmtree("{DIR}")'`, needs: "python3", removes: true},
	{name: "python3 open", script: `python3 -c 'open("{DIR}/pwned", "w").write("x")'`, needs: "python3"},
	{name: "perl", script: `perl -e 'open(my $f, ">", "{DIR}/pwned") or die "$!"; print $f "x"'`, needs: "perl"},
	{name: "node", script: `node -e 'require("fs").writeFileSync("{DIR}/pwned", "x")'`, needs: "node"},
	{name: "make recipe", script: `printf 'all:\n\ttouch {DIR}/pwned\n' > {TMP}/Makefile && make -s -f {TMP}/Makefile`, needs: "make"},
	{name: "heredoc into bash", script: "bash <<'EOF'\ntouch {DIR}/pwned\nEOF"},
	{name: "heredoc into sh", script: "sh <<'EOF'\nrm -rf {DIR}\nEOF", removes: true},
	{name: "herestring into bash", script: `bash <<< 'rm -rf {DIR}'`, removes: true},
	{name: "source process substitution", script: `source <(echo 'touch {DIR}/pwned')`},
	{name: "trap EXIT", script: `trap 'touch {DIR}/pwned' EXIT; true`},
	{name: "BASH_ENV", script: `echo 'touch {DIR}/pwned' > {TMP}/rc; BASH_ENV={TMP}/rc bash -c true`},
	{name: "bash --rcfile -i", script: `echo 'touch {DIR}/pwned' > {TMP}/rc; bash --rcfile {TMP}/rc -i </dev/null`},
	{name: "PROMPT_COMMAND", script: `PROMPT_COMMAND='touch {DIR}/pwned' bash -i </dev/null`},
	{name: "git -c alias", script: `git -c alias.x='!touch {DIR}/pwned' x`, needs: "git"},
	{name: "xargs sh -c", script: `echo {DIR}/pwned | xargs -I{} sh -c 'touch {}'`},
	{name: "find -exec", script: `find {DIR} -name keep -exec rm {} \;`, removes: true},
	{name: "setsid background", script: `setsid sh -c 'sleep 0.2; touch {DIR}/pwned' & sleep 0.5`},
}

func (a attack) render(dir, tmp string) string {
	return strings.NewReplacer("{DIR}", dir, "{TMP}", tmp).Replace(a.script)
}

// done reports whether the attack had its effect on dir.
func (a attack) done(dir string) bool {
	if a.removes {
		_, err := os.Stat(filepath.Join(dir, "keep"))
		return err != nil
	}
	_, err := os.Stat(filepath.Join(dir, "pwned"))
	return err == nil
}

// TestWritesOutsideTheWorkspaceAreDenied runs each attack against a
// directory outside the workspace, which must stay unchanged, and, as a
// positive control, against one inside it, where it must work.
func TestWritesOutsideTheWorkspaceAreDenied(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			t.Parallel()
			for _, a := range attacks {
				t.Run(a.name, func(t *testing.T) {
					if a.needs != "" {
						if _, err := exec.LookPath(a.needs); err != nil {
							t.Skipf("%s not installed", a.needs)
						}
					}
					w := newWorld(t)
					before := treeHash(t, w.outside)
					homeBefore := treeHash(t, w.home)
					r := run(t, w.profile(l), a.render(w.outside, w.tmp))
					if treeHash(t, w.outside) != before || a.done(w.outside) {
						t.Fatalf("the attack changed a directory outside the workspace: %+v", r)
					}
					if treeHash(t, w.home) != homeBefore {
						t.Fatalf("the attack changed the home directory: %+v", r)
					}
					inside := filepath.Join(w.ws, "target")
					writeTestFile(t, filepath.Join(inside, "keep"), "keep\n")
					if r := run(t, w.profile(l), a.render(inside, w.tmp)); !a.done(inside) {
						t.Fatalf("positive control: the same command did not work inside the workspace: %+v", r)
					}
				})
			}
		})
	}
}

// TestHomeSurvivesDeletion: rm -rf ~ and a symlink to it leave the fake
// home as it was, but for the writable cache inside it.
func TestHomeSurvivesDeletion(t *testing.T) {
	for _, l := range levels(t, LevelLandlock) {
		t.Run(l.String(), func(t *testing.T) {
			for _, script := range []string{`rm -rf ~`, `rm -rf ~/`, `ln -s ~ hl && rm -rf hl/`, `ln -s ~ hl && rm -rf hl/*  hl/.[!.]*`,
				`cd ~ && find . -delete`} {
				w := newWorld(t)
				p := w.profile(l)
				p.WritableRoots = nil // nothing in the home is writable
				before := treeHash(t, w.home)
				r := run(t, p, script)
				if treeHash(t, w.home) != before {
					t.Errorf("%s changed the home directory: %+v", script, r)
				}
			}
			// Positive control: the same through a symlink to a directory inside.
			w := newWorld(t)
			writeTestFile(t, filepath.Join(w.ws, "d", "f"), "x")
			if r := run(t, w.profile(l), `ln -s `+filepath.Join(w.ws, "d")+` hl && rm -rf hl/`); r.code != 0 {
				t.Errorf("positive control failed: %+v", r)
			}
			if _, err := os.Stat(filepath.Join(w.ws, "d", "f")); err == nil {
				t.Error("positive control: the file inside was not deleted")
			}
		})
	}
}

// treeHash fingerprints a directory: paths, kinds, modes and contents.
func treeHash(t *testing.T, root string) string {
	t.Helper()
	h := sha256.New()
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if strings.Contains(d.Name(), movedMark) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		fmt.Fprintf(h, "%s %v\n", p, fi.Mode())
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Write(b)
		}
		return nil
	})
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return fmt.Sprintf("%x", h.Sum(nil))
}
