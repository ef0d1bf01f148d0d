package skills

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/regfile"
)

// maxListed bounds the list of a skill's other files in Load.
const maxListed = 100

// Load returns the skill's instructions: the SKILL.md body without front
// matter, then the other files of its directory (scripts, references) that
// the instructions may point to, by path relative to Dir.
func (s Skill) Load() (string, error) {
	b, err := regfile.Read(s.Path, maxSkillFile)
	if err != nil {
		return "", err
	}
	_, body, err := FrontMatter(string(b))
	if err != nil {
		return "", fmt.Errorf("%s: %w", s.Path, err)
	}
	var out strings.Builder
	out.WriteString(strings.TrimRight(body, "\n"))
	out.WriteString("\n")
	files, more := s.otherFiles()
	if len(files) > 0 {
		fmt.Fprintf(&out, "\nSkill directory: %s\nOther files in it (paths relative to it; read them when the instructions call for them):\n", s.Dir)
		for _, f := range files {
			out.WriteString("- " + f + "\n")
		}
		if more {
			fmt.Fprintf(&out, "- … (more than %d files; list the directory to see the rest)\n", maxListed)
		}
	}
	return out.String(), nil
}

// otherFiles lists the files below Dir except SKILL.md, skipping hidden
// entries; more reports that the list was cut at maxListed.
func (s Skill) otherFiles() (files []string, more bool) {
	_ = filepath.WalkDir(s.Dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == s.Dir {
			return nil
		}
		if strings.HasPrefix(d.Name(), ".") {
			if d.IsDir() {
				return filepath.SkipDir
			}
			return nil
		}
		if d.IsDir() && isFile(filepath.Join(p, FileName)) {
			return filepath.SkipDir // another skill's directory
		}
		rel, _ := filepath.Rel(s.Dir, p)
		if d.IsDir() || rel == FileName {
			return nil
		}
		if len(files) == maxListed {
			more = true
			return filepath.SkipAll
		}
		files = append(files, filepath.ToSlash(rel))
		return nil
	})
	return files, more
}

// Catalog is the list of skills for the system prompt: one
// "- name: description" line each, descriptions folded onto one line.
func Catalog(list []Skill) string {
	var b strings.Builder
	for _, s := range list {
		fmt.Fprintf(&b, "- %s: %s\n", s.Name, strings.Join(strings.Fields(s.Description), " "))
	}
	return b.String()
}
