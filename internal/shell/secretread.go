package shell

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/secrets"
)

// Secrets files (.env, keys) send credentials to the model provider when
// read, so a command that would read one needs a person's yes. The check
// judges the files the command will actually read: globs expanded, symlinks
// followed, and directories that a recursive reader walks.

// nonReaders take file names without reading the files' content.
var nonReaders = sync.OnceValue(func() map[string]bool {
	return set("echo", "printf", "test", "[", "ls", "stat", "file", "basename", "dirname",
		"realpath", "readlink", "mkdir", "rmdir", "touch", "cd", "pushd", "which", "type", "true",
		"false", ":", "chmod", "chown", "du", "wc", "rm", "unlink", "mv", "ln", "export", "unset")
})

// recursive readers walk the directories they are given (with these flags).
var recursiveReaders = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"grep": {"-r", "-R", "--recursive", "--dereference-recursive"}, "egrep": {"-r", "-R"}, "fgrep": {"-r", "-R"},
		"cp": {"-r", "-R", "-a", "--recursive", "--archive"}, "scp": {"-r"}, "rsync": {"-r", "-a", "--recursive", "--archive"},
		"zip": {"-r"}, "diff": {"-r", "--recursive"},
		// These walk whatever directory they are given, flag or not.
		"rg": {""}, "ag": {""}, "ack": {""}, "tar": {""}, "7z": {""}, "jar": {""},
	}
})

// maxWalk bounds the entries looked at to find a secrets file in a tree.
const maxWalk = 20000

func (a *analyzer) checkSecrets(name string, ws []word) {
	if nonReaders()[name] {
		return
	}
	recursive := a.walksTrees(name, ws)
	a.skipHidden = skipsHidden(name, ws)
	operands := 0
	for _, w := range ws[1:] {
		if !w.known {
			continue
		}
		t := w.text
		if name == "curl" { // curl -d @.env / -T .env uploads the file
			t = strings.TrimPrefix(t, "@")
		}
		if _, v, ok := strings.Cut(t, "="); ok && !strings.HasPrefix(t, "-") { // dd if=.env
			t = v
		}
		if t == "" || strings.HasPrefix(t, "-") {
			continue
		}
		operands++
		a.secretOperand(t, w.path, recursive)
	}
	// rg and ag with no path search the working directory.
	if operands <= 1 && (name == "rg" || name == "ag" || name == "ack") {
		a.secretTree(".")
	}
}

// skipsHidden: ripgrep and its kin skip hidden files (.env) unless told.
func skipsHidden(name string, ws []word) bool {
	if name != "rg" && name != "ag" && name != "ack" {
		return false
	}
	for _, w := range ws[1:] {
		t := w.text
		if t == "--hidden" || t == "-." || strings.HasPrefix(t, "--no-ignore") || t == "-u" || t == "-uu" || t == "-uuu" ||
			(strings.HasPrefix(t, "-") && !strings.HasPrefix(t, "--") && strings.Contains(t, "u")) {
			return false
		}
	}
	return true
}

// walksTrees reports whether the command reads directories recursively.
func (a *analyzer) walksTrees(name string, ws []word) bool {
	flags, ok := recursiveReaders()[name]
	if !ok {
		return false
	}
	for _, f := range flags {
		if f == "" {
			return true
		}
	}
	for _, w := range ws[1:] {
		for _, f := range flags {
			if w.text == f || len(f) == 2 && strings.HasPrefix(w.text, "-") && !strings.HasPrefix(w.text, "--") &&
				strings.Contains(w.text[1:], f[1:]) {
				return true
			}
		}
	}
	return false
}

// secretOperand checks one operand: its name, what its glob matches, where
// its symlinks lead, and, for a recursive reader, the tree below it.
func (a *analyzer) secretOperand(text, path string, recursive bool) {
	if path == "" {
		path = text
	}
	if a.secretName(text, a.resolve(path)) {
		return
	}
	if strings.ContainsAny(path, "*?[") {
		for _, m := range a.glob(path) {
			if a.secretName(m, a.resolve(m)) {
				return
			}
			if recursive {
				a.secretTree(m)
			}
		}
		return
	}
	if recursive {
		a.secretTree(path)
	}
}

// secretName asks when name, or the file it resolves to (abs, symlinks
// followed), is a secrets file.
func (a *analyzer) secretName(name, abs string) bool {
	switch {
	case secrets.IsPath(name):
		a.reason(secrets.PathReason(name))
	case abs != "" && secrets.IsPath(abs):
		a.reason("reads a secrets file: " + name + " → " + abs)
	default:
		return false
	}
	return true
}

// glob expands a pattern relative to the command's directory (at most 200
// names), as the shell would.
func (a *analyzer) glob(pattern string) []string {
	if !a.cwdKnown && !filepath.IsAbs(pattern) {
		return nil
	}
	full := pattern
	if !filepath.IsAbs(pattern) {
		full = filepath.Join(a.cwd, pattern)
	}
	ms, _ := filepath.Glob(full)
	if len(ms) > 200 {
		ms = ms[:200]
	}
	if !filepath.IsAbs(pattern) {
		for i, m := range ms {
			if rel, err := filepath.Rel(a.cwd, m); err == nil {
				ms[i] = rel
			}
		}
	}
	return ms
}

// secretTree asks when the directory dir (relative to the command's
// directory) holds a secrets file somewhere below it.
func (a *analyzer) secretTree(dir string) {
	abs := a.resolve(dir)
	if abs == "" {
		return
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return
	}
	seen := 0
	_ = filepath.WalkDir(abs, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if seen++; seen > maxWalk {
			return filepath.SkipAll
		}
		if p != abs && (d.Name() == ".git" || d.Name() == "node_modules" || a.skipHidden && strings.HasPrefix(d.Name(), ".")) {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.IsDir() && secrets.IsPath(p) {
			rel, _ := filepath.Rel(abs, p)
			a.reason("reads a directory holding a secrets file: " + filepath.Join(dir, rel))
			return filepath.SkipAll
		}
		return nil
	})
}

func (a *analyzer) secret(p string) {
	if r := secrets.PathReason(p); r != "" {
		a.reason(r)
	}
}
