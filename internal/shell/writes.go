package shell

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/paths"
)

// Where commands write, and whether that stays inside the workspace.

// writeValueOpts are, per command, the options whose value is the next
// word, so that word is not taken for a file.
var writeValueOpts = sync.OnceValue(func() map[string][]string {
	return map[string][]string{
		"cp":       {"-t", "--target-directory", "-S", "--suffix"},
		"mv":       {"-t", "--target-directory", "-S", "--suffix"},
		"ln":       {"-t", "--target-directory", "-S", "--suffix"},
		"install":  {"-t", "--target-directory", "-S", "--suffix", "-m", "--mode", "-o", "--owner", "-g", "--group"},
		"touch":    {"-d", "--date", "-r", "--reference", "-t"},
		"truncate": {"-s", "--size", "-r", "--reference"},
		"mkdir":    {"-m", "--mode"},
		"sed":      {"-e", "--expression", "-f", "--file", "-l", "--line-length"},
		"rsync":    {"-e", "--rsh"},
	}
})

// writeTargets lists the files a command writes, as far as its argv says.
func writeTargets(name string, ws []word) []word {
	operands, target := writeOperands(name, ws)
	switch name {
	case "rm", "rmdir", "unlink", "shred", "touch", "mkdir", "truncate", "tee":
		return operands
	case "cp", "ln", "install", "rsync", "scp":
		return destination(operands, target)
	case "mv": // the sources disappear, so they are written too
		return append(destination(operands, target), operands...)
	case "chmod", "chown", "chgrp":
		if len(operands) > 1 {
			return operands[1:]
		}
	case "sed":
		return sedFiles(ws, operands)
	case "dd":
		return optValues(ws, "of=")
	case "curl":
		return optArgs(ws, "-o", "--output")
	case "wget":
		return optArgs(ws, "-O", "--output-document")
	}
	return nil
}

// writeOperands returns the non-option words, skipping option values, and
// the value of -t/--target-directory when given.
func writeOperands(name string, ws []word) (operands []word, target *word) {
	valueOpts := writeValueOpts()[name]
	done := false
	for i := 1; i < len(ws); i++ {
		w := ws[i]
		switch {
		case done || !w.known || len(w.text) < 2 || w.text[0] != '-':
			operands = append(operands, w)
		case w.text == "--":
			done = true
		case strings.HasPrefix(w.text, "--target-directory="):
			t := knownWord(strings.TrimPrefix(w.text, "--target-directory="))
			target = &t
		case slices.Contains(valueOpts, w.text) && i+1 < len(ws):
			if name != "touch" && (w.text == "-t" || w.text == "--target-directory") {
				target = &ws[i+1]
			}
			i++
		}
	}
	return operands, target
}

func destination(operands []word, target *word) []word {
	switch {
	case target != nil:
		return []word{*target}
	case len(operands) >= 2:
		return operands[len(operands)-1:]
	}
	return nil
}

// sedFiles: with -i the files after the script are rewritten.
func sedFiles(ws, operands []word) []word {
	inPlace, script := false, false
	for _, w := range ws[1:] {
		t := w.text
		inPlace = inPlace || t == "-i" || strings.HasPrefix(t, "-i") && !strings.HasPrefix(t, "--") ||
			strings.HasPrefix(t, "--in-place")
		script = script || t == "-e" || t == "-f" || strings.HasPrefix(t, "--expression") || strings.HasPrefix(t, "--file")
	}
	if !inPlace {
		return nil
	}
	if !script && len(operands) > 0 {
		return operands[1:]
	}
	return operands
}

func optValues(ws []word, prefix string) []word {
	var out []word
	for _, w := range ws[1:] {
		if w.known && strings.HasPrefix(w.text, prefix) {
			v := strings.TrimPrefix(w.text, prefix)
			out = append(out, word{text: v, path: strings.TrimPrefix(w.path, prefix), known: true})
		}
	}
	return out
}

func optArgs(ws []word, short, long string) []word {
	var out []word
	for i, w := range ws {
		switch {
		case (w.text == short || w.text == long) && i+1 < len(ws):
			out = append(out, ws[i+1])
		case strings.HasPrefix(w.text, long+"="):
			out = append(out, knownWord(strings.TrimPrefix(w.text, long+"=")))
		}
	}
	return out
}

// writeTarget reports a write to a block device or outside the workspace.
func (a *analyzer) writeTarget(w word) {
	if !w.known {
		return
	}
	p := a.resolve(w.path)
	switch {
	case p == "" || harmlessDevice(p):
	case isBlockDevice(p):
		a.reason("writes to a block device: " + p)
	case !a.inside(p):
		a.reason("writes outside the workspace: " + p)
	case paths.Within(a.workspace, p):
		if rel, err := filepath.Rel(a.workspace, p); err == nil {
			if r := control.Reason(filepath.ToSlash(rel)); r != "" {
				a.reason(r)
			}
		}
	}
}

// redirects checks a statement's redirections and reports whether one of
// them writes a real file. ">>" appends, so it is a write but never an
// overwrite.
func (a *analyzer) redirects(rs []*syntax.Redirect, depth int) bool {
	writes := false
	for _, r := range rs {
		if r.Hdoc != nil {
			a.nested(r.Hdoc, depth)
		}
		if r.Word == nil {
			continue
		}
		a.nested(r.Word, depth)
		switch r.Op {
		case syntax.RdrOut, syntax.RdrClob, syntax.RdrAll, syntax.RdrAllClob:
			writes = a.redirWrite(r.Word, true) || writes
		case syntax.AppOut, syntax.AppClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut:
			writes = a.redirWrite(r.Word, false) || writes
		case syntax.DplOut: // ">&file" is "&>file"; ">&2" and ">&-" are fds
			if t := r.Word.Lit(); t != "-" && strings.Trim(t, "0123456789") != "" {
				writes = a.redirWrite(r.Word, true) || writes
			}
		case syntax.RdrIn:
			if v := a.word(r.Word); v.known {
				a.secret(v.text)
			}
		}
	}
	if writes {
		a.writes = true
	}
	return writes
}

func (a *analyzer) redirWrite(w *syntax.Word, overwrite bool) bool {
	v := a.word(w)
	if !v.known {
		a.reason("writes to a path computed at run time: " + v.text)
		return true
	}
	p := a.resolve(v.path)
	if p != "" && harmlessDevice(p) {
		return false
	}
	a.writeTarget(v)
	if fi, err := os.Stat(p); p != "" && overwrite && err == nil && fi.Mode().IsRegular() {
		a.reason("overwrites an existing file: " + v.text)
	}
	return true
}

// resolve makes p absolute (relative to the command's cwd), cleans it and
// follows symlinks as far as the path exists. "" when the cwd is unknown.
func (a *analyzer) resolve(p string) string {
	if !filepath.IsAbs(p) {
		if !a.cwdKnown {
			return ""
		}
		p = filepath.Join(a.cwd, p)
	}
	p = filepath.Clean(p)
	if harmlessDevice(p) {
		return p
	}
	return realPath(p)
}

func (a *analyzer) inside(p string) bool {
	if paths.Within(a.workspace, p) {
		return true
	}
	for _, d := range a.writable {
		if paths.Within(d, p) {
			return true
		}
	}
	return false
}

// realPath resolves symlinks in the longest existing prefix of p, so a
// file that does not exist yet below a symlinked directory is judged by
// where it would land.
func realPath(p string) string { return realPathDepth(p, 0) }

// realPathDepth resolves symlinks like EvalSymlinks, but also through a
// dangling link: "> link" where link points to a file that does not exist
// yet writes where the link points.
func realPathDepth(p string, depth int) string {
	if p == "" {
		return ""
	}
	p = filepath.Clean(p)
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&os.ModeSymlink != 0 && depth < 40 {
		if target, err := os.Readlink(p); err == nil {
			if !filepath.IsAbs(target) {
				target = filepath.Join(filepath.Dir(p), target)
			}
			return realPathDepth(target, depth+1)
		}
	}
	parent := filepath.Dir(p)
	if parent == p {
		return p
	}
	return filepath.Join(realPathDepth(parent, depth), filepath.Base(p))
}

// harmlessDevice: writing to these discards or prints the data.
func harmlessDevice(p string) bool {
	switch p {
	case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/stdin", "/dev/tty", "/dev/zero", "/dev/full":
		return true
	}
	return strings.HasPrefix(p, "/dev/fd/") || strings.HasPrefix(p, "/proc/self/fd/") ||
		strings.HasPrefix(p, "/dev/pts/")
}

var blockPrefixes = []string{"/dev/sd", "/dev/hd", "/dev/vd", "/dev/xvd", "/dev/nvme",
	"/dev/mmcblk", "/dev/loop", "/dev/dm-", "/dev/md", "/dev/mapper/", "/dev/disk/"}

func isBlockDevice(p string) bool {
	for _, pre := range blockPrefixes {
		if strings.HasPrefix(p, pre) {
			return true
		}
	}
	fi, err := os.Stat(p)
	return err == nil && fi.Mode()&os.ModeDevice != 0 && fi.Mode()&os.ModeCharDevice == 0
}
