package repl

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/coder-agent/coder/internal/input"
	"github.com/coder-agent/coder/internal/termsafe"
)

// complete is Tab on a non-empty input: the word before the cursor is
// completed as a /command (built-in or custom), a command's argument (a
// model for /model, a preset for /permissions, …) or an @path. One
// candidate is taken whole; several open a menu to choose from (see
// menu). Anywhere else Tab is a literal tab.
func (r *REPL) complete(ctx context.Context) {
	m, ok := r.candidates(ctx)
	if !ok {
		r.ed.insert("\t")
		return
	}
	switch len(m.items) {
	case 0:
		_, word := r.ed.word()
		r.hint = r.o.Style.Dim("no completion for " + termsafe.Visible(word))
	case 1:
		r.ed.replaceWord(m.start, m.items[0]+m.suffix(0))
		r.hint = ""
	default:
		r.menu = m
	}
}

// candidates are the completions of the word before the cursor; ok is
// false where nothing completes (Tab is then a tab).
func (r *REPL) candidates(ctx context.Context) (m *menu, ok bool) {
	start, word := r.ed.word()
	before := string(r.ed.buf[:start])
	var cands []string
	commands := false
	cmd := input.Parse(before) // the line up to the word, when it names a command
	switch {
	case strings.TrimSpace(before) == "" && input.Parse(word).Kind == input.Command: // a command's name
		for _, n := range r.runner.Names() {
			cands = append(cands, "/"+n)
		}
		commands = true
	case strings.HasPrefix(word, "@"):
		cands = pathCandidates(r.prompt.get().Cwd, word[1:])
		for i := range cands {
			cands[i] = "@" + cands[i]
		}
	case cmd.Kind == input.Command && len(strings.Fields(before)) == 1 && strings.HasSuffix(before, " "): // its argument
		cands = r.arguments(ctx, cmd.Name)
	default:
		return nil, false
	}
	m = &menu{start: start}
	for _, c := range cands {
		if strings.HasPrefix(c, word) && termsafe.Visible(c) == c {
			m.items = append(m.items, c)
			if commands {
				m.notes = append(m.notes, r.runner.Summary(strings.TrimPrefix(c, "/")))
			}
		}
	}
	return m, true
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
