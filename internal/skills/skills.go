// Package skills finds skills: directories holding a SKILL.md whose front
// matter gives a name and a description. The system prompt lists them; the
// skill tool loads one in full when the model decides it applies.
package skills

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"github.com/coder-agent/coder/internal/regfile"
)

// FileName is the file that makes a directory a skill.
const FileName = "SKILL.md"

// compatDirs are other agents' skill directories, read from the workspace so
// that skills written for them work here unchanged.
var compatDirs = []string{".claude/skills", ".agents/skills"}

// Skill is one discovered skill.
type Skill struct {
	Name        string
	Description string
	Path        string // the SKILL.md file
	Dir         string // the skill's directory
}

// Discover scans each of paths (relative to workspace; a leading ~ is home)
// and then the compatibility directories for SKILL.md files, in a directory
// itself or in its immediate subdirectories. Missing directories are fine.
// Each problem (bad front matter, a name already taken) is one error; the
// rest of the skills are still returned. The first skill with a name wins.
func Discover(paths []string, workspace, home string) ([]Skill, []error) {
	var (
		found []Skill
		errs  []error
		names = map[string]string{} // name → path of the winner
		seen  = map[string]bool{}   // directories already scanned
	)
	for _, dir := range append(slices.Clone(paths), compatDirs...) {
		dir = resolve(dir, workspace, home)
		if dir == "" || seen[dir] {
			continue
		}
		seen[dir] = true
		files, err := skillFiles(dir)
		if err != nil {
			errs = append(errs, err)
		}
		for _, f := range files {
			s, err := parse(f)
			if err != nil {
				errs = append(errs, err)
				continue
			}
			if winner, dup := names[s.Name]; dup {
				errs = append(errs, fmt.Errorf("skill %q in %s is shadowed by %s", s.Name, f, winner))
				continue
			}
			names[s.Name] = f
			found = append(found, s)
		}
	}
	return found, errs
}

// resolve makes dir absolute: ~ is home, relative is below workspace.
func resolve(dir, workspace, home string) string {
	switch {
	case dir == "":
		return ""
	case dir == "~" || strings.HasPrefix(dir, "~/"):
		if home == "" {
			return ""
		}
		dir = filepath.Join(home, dir[1:])
	case !filepath.IsAbs(dir):
		dir = filepath.Join(workspace, dir)
	}
	return filepath.Clean(dir)
}

// skillFiles returns dir/SKILL.md and dir/*/SKILL.md, sorted. A directory
// that does not exist has none; one that cannot be read is an error.
func skillFiles(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("skills: %w", err)
	}
	var files []string
	if isFile(filepath.Join(dir, FileName)) {
		files = append(files, filepath.Join(dir, FileName))
	}
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			continue
		}
		// Stat, not e.IsDir: a symlinked skill directory counts.
		f := filepath.Join(dir, e.Name(), FileName)
		if isFile(f) {
			files = append(files, f)
		}
	}
	return files, nil
}

func isFile(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular()
}

// maxSkillFile bounds a SKILL.md.
const maxSkillFile = 1 << 20

// parse reads the front matter of one SKILL.md.
func parse(path string) (Skill, error) {
	b, err := regfile.Read(path, maxSkillFile)
	if err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", path, err)
	}
	fields, _, err := FrontMatter(string(b))
	if err != nil {
		return Skill{}, fmt.Errorf("skill %s: %w", path, err)
	}
	if fields == nil {
		return Skill{}, fmt.Errorf("skill %s: no front matter (a --- block with name and description)", path)
	}
	s := Skill{
		Name:        strings.TrimSpace(fields["name"]),
		Description: strings.TrimSpace(fields["description"]),
		Path:        path,
		Dir:         filepath.Dir(path),
	}
	var missing []string
	if s.Name == "" {
		missing = append(missing, "name")
	}
	if s.Description == "" {
		missing = append(missing, "description")
	}
	if len(missing) > 0 {
		return Skill{}, fmt.Errorf("skill %s: front matter has no %s", path, strings.Join(missing, " or "))
	}
	if strings.ContainsAny(s.Name, " \t\n") {
		return Skill{}, fmt.Errorf("skill %s: name %q contains whitespace", path, s.Name)
	}
	return s, nil
}
