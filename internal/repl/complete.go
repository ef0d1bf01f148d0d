package repl

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/termsafe"
)

// complete is Tab on a non-empty input: the word before the cursor is
// completed as a /command (built-in or custom), a command's argument (a
// model for /model, …) or an @path. One candidate is taken whole; several
// are narrowed to what they share and listed under the prompt. Anywhere
// else Tab is a literal tab.
func (r *REPL) complete(ctx context.Context) {
	if r.ed.paste != "" {
		return
	}
	start, word := r.ed.word()
	before := string(r.ed.buf[:start])
	var (
		cands []string
		space = " " // after a finished word
	)
	switch {
	case strings.HasPrefix(word, "/") && strings.TrimSpace(before) == "":
		for _, n := range r.runner.Names() {
			cands = append(cands, "/"+n)
		}
	case strings.HasPrefix(word, "@"):
		cands = pathCandidates(r.o.Renderer.Prompt().Cwd, word[1:])
		for i := range cands {
			cands[i] = "@" + cands[i]
		}
	case strings.HasPrefix(before, "/") && len(strings.Fields(before)) == 1 && strings.HasSuffix(before, " "):
		cands = r.arguments(ctx, strings.TrimPrefix(strings.TrimSpace(before), "/"))
	default:
		r.ed.insert("\t")
		return
	}
	var match []string
	for _, c := range cands {
		if strings.HasPrefix(c, word) {
			match = append(match, c)
		}
	}
	switch len(match) {
	case 0:
		r.hint = r.o.Style.Dim("no completion for " + termsafe.Visible(word))
	case 1:
		if strings.HasSuffix(match[0], "/") {
			space = "" // a directory: go on into it
		}
		r.ed.replaceWord(start, match[0]+space)
		r.hint = ""
	default:
		if p := commonPrefix(match); len(p) > len(word) {
			r.ed.replaceWord(start, p)
		}
		r.hint = r.o.Style.Dim(termsafe.Visible(strings.Join(match, "  ")))
	}
}

// arguments are a command's possible arguments, asked once per command.
func (r *REPL) arguments(ctx context.Context, command string) []string {
	if a, ok := r.args[command]; ok {
		return a
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second) // a person waits on it
	defer cancel()
	a := r.runner.Arguments(ctx, command)
	if a != nil {
		r.args[command] = a
	}
	return a
}

// pathCandidates lists the entries of prefix's directory (relative to the
// workspace) that start with its last element; directories end in "/".
// Hidden entries show only when asked for with a leading dot.
func pathCandidates(root, prefix string) []string {
	dir, base := filepath.Split(prefix)
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(dir)))
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range entries {
		name := e.Name()
		// A name with control characters is never typed into the line.
		if !strings.HasPrefix(name, base) || (strings.HasPrefix(name, ".") && !strings.HasPrefix(base, ".")) || name == ".git" ||
			termsafe.Visible(name) != name {
			continue
		}
		if e.IsDir() {
			name += "/"
		}
		out = append(out, dir+name)
	}
	sort.Strings(out)
	return out
}

func commonPrefix(ss []string) string {
	p := ss[0]
	for _, s := range ss[1:] {
		for !strings.HasPrefix(s, p) {
			p = p[:len(p)-1]
		}
	}
	return p
}
