// Package customcmd finds custom slash commands: Markdown files whose body is
// a prompt template. .coder/commands/<name>.md becomes /<name>, and
// $ARGUMENTS in it is replaced by what the user typed after the name.
package customcmd

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/regfile"
	"github.com/coder-agent/coder/internal/skills"
)

// Command is one custom command.
type Command struct {
	Name string
	// Description is the front matter description, else the body's first
	// non-empty line.
	Description string
	Path        string
	// Body is the template, without front matter.
	Body string
}

var validName = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9_-]+$`) })

// maxDescription bounds a description taken from the body's first line.
const maxDescription = 100

// Discover reads <workspace>/.coder/commands/*.md and then
// <userConfigDir>/commands/*.md. A project command wins over a user command
// of the same name. Files that cannot be used are reported, one error each;
// missing directories are fine. Commands come back sorted by name.
func Discover(workspace, userConfigDir string) ([]Command, []error) {
	var dirs []string
	if workspace != "" {
		dirs = append(dirs, filepath.Join(workspace, ".coder", "commands"))
	}
	if userConfigDir != "" {
		dirs = append(dirs, filepath.Join(userConfigDir, "commands"))
	}
	byName := map[string]Command{}
	var errs []error
	for _, dir := range dirs {
		cmds, dirErrs := readDir(dir)
		errs = append(errs, dirErrs...)
		for _, c := range cmds {
			if prev, taken := byName[c.Name]; taken {
				errs = append(errs, fmt.Errorf("command /%s in %s is shadowed by %s", c.Name, c.Path, prev.Path))
				continue
			}
			byName[c.Name] = c
		}
	}
	out := make([]Command, 0, len(byName))
	for _, c := range byName {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, errs
}

func readDir(dir string) ([]Command, []error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, []error{fmt.Errorf("custom commands: %w", err)}
	}
	var cmds []Command
	var errs []error
	for _, e := range entries {
		if e.IsDir() || !strings.EqualFold(filepath.Ext(e.Name()), ".md") {
			continue
		}
		c, err := load(filepath.Join(dir, e.Name()))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		cmds = append(cmds, c)
	}
	return cmds, errs
}

// maxCommandFile bounds a custom command's file.
const maxCommandFile = 1 << 20

func load(path string) (Command, error) {
	base := filepath.Base(path)
	name := strings.ToLower(strings.TrimSuffix(base, filepath.Ext(base)))
	if !validName().MatchString(name) {
		return Command{}, fmt.Errorf("custom command %s: name %q may only use a-z, 0-9, _ and -", path, name)
	}
	b, err := regfile.Read(path, maxCommandFile)
	if err != nil {
		return Command{}, fmt.Errorf("custom command %s: %w", path, err)
	}
	fields, body, err := skills.FrontMatter(string(b))
	if err != nil {
		return Command{}, fmt.Errorf("custom command %s: %w", path, err)
	}
	if strings.TrimSpace(body) == "" {
		return Command{}, fmt.Errorf("custom command %s: the file has no prompt", path)
	}
	desc := strings.Join(strings.Fields(fields["description"]), " ")
	if desc == "" {
		desc = firstLine(body)
	}
	return Command{Name: name, Description: desc, Path: path, Body: body}, nil
}

// firstLine is the first non-empty line, without heading marks, shortened.
func firstLine(body string) string {
	for l := range strings.Lines(body) {
		l = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(l), "#"))
		if l == "" {
			continue
		}
		if r := []rune(l); len(r) > maxDescription {
			l = string(r[:maxDescription-1]) + "…"
		}
		return l
	}
	return ""
}

// Expand returns the prompt for args: every $ARGUMENTS replaced by args. A
// body without $ARGUMENTS gets non-empty args appended after a blank line,
// so that what the user typed is never dropped.
func (c Command) Expand(args string) string {
	args = strings.TrimSpace(args)
	if strings.Contains(c.Body, "$ARGUMENTS") {
		return strings.ReplaceAll(c.Body, "$ARGUMENTS", args)
	}
	if args == "" {
		return c.Body
	}
	return strings.TrimRight(c.Body, "\n") + "\n\n" + args
}
