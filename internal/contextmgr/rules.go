package contextmgr

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/coder-agent/coder/internal/regfile"
)

// MaxRulesBytes caps one rules file in the system prompt: the prompt is sent
// with every request, so a runaway file must not eat the context.
const MaxRulesBytes = 32 << 10

// RulesFile is one rules file as it goes into the system prompt.
type RulesFile struct {
	// Name is how the prompt names the file: relative to the workspace for
	// project files, the full path for user-wide ones.
	Name    string
	Content string
	// Size is the file's size in bytes; Truncated means only the first
	// MaxRulesBytes (cut at a line end) are in Content.
	Size      int64
	Truncated bool
}

// Rules file names, in the order they are read. The user config dir (e.g.
// ~/.config/coder) holds rules.md directly rather than under .coder/.
var (
	projectRulesNames = []string{"AGENTS.md", "CLAUDE.md", filepath.Join(".coder", "rules.md")}
	userRulesNames    = []string{"AGENTS.md", "CLAUDE.md", "rules.md"}
)

// LoadRules reads the rules files of the user config dir, then of the
// workspace root, so project rules come last and win a conflict. Missing
// and empty files are skipped; one that exists but cannot be read (not a
// regular file: a FIFO would block) is skipped and reported in problems; a
// file with the same content as one already loaded (CLAUDE.md as a symlink
// to AGENTS.md) is loaded once. Either directory may be empty.
func LoadRules(workspace, userConfigDir string) (out []RulesFile, problems []error) {
	seen := map[string]bool{}
	add := func(dir, name, display string) {
		f, ok, err := readRules(filepath.Join(dir, name), display)
		if err != nil {
			problems = append(problems, fmt.Errorf("rules file %s skipped: %w", display, err))
		}
		if ok && !seen[f.Content] {
			seen[f.Content] = true
			out = append(out, f)
		}
	}
	if userConfigDir != "" && !sameDir(userConfigDir, workspace) {
		for _, n := range userRulesNames {
			add(userConfigDir, n, filepath.Join(userConfigDir, n))
		}
	}
	if workspace != "" {
		for _, n := range projectRulesNames {
			add(workspace, n, filepath.ToSlash(n))
		}
	}
	return out, problems
}

func sameDir(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	sa, errA := os.Stat(a)
	sb, errB := os.Stat(b)
	return errA == nil && errB == nil && os.SameFile(sa, sb)
}

// readRules reads at most MaxRulesBytes of path, cut at a line end. A
// missing file is no error.
func readRules(path, display string) (RulesFile, bool, error) {
	f, st, err := regfile.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return RulesFile{}, false, nil
	}
	if err != nil {
		return RulesFile{}, false, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxRulesBytes+1))
	if err != nil {
		return RulesFile{}, false, err
	}
	r := RulesFile{Name: display, Size: st.Size()}
	if len(data) > MaxRulesBytes {
		data, r.Truncated = cutAtLine(data, MaxRulesBytes), true
	}
	r.Content = strings.TrimSpace(strings.ToValidUTF8(string(data), "\uFFFD"))
	return r, r.Content != "", nil
}

// rulesSection formats the rules files, each under a header naming it.
func rulesSection(files []RulesFile) string {
	if len(files) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("# Rules\nFollow these instructions from the user's rules files; project files override user-wide ones.")
	for _, f := range files {
		fmt.Fprintf(&b, "\n\n## %s\n%s", f.Name, f.Content)
		if f.Truncated {
			fmt.Fprintf(&b, "\n[truncated: first %d of %d bytes shown; read the file for the rest]", len(f.Content), f.Size)
		}
	}
	return b.String()
}
