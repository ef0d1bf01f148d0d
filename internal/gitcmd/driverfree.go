package gitcmd

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/coder-agent/coder/internal/regfile"
)

// driverFree reports whether no configuration file git could read as the
// repository's own (local or worktree scope) for a command run in dir can
// define a driver: then listing the configuration (a git process of its
// own, most of what the summary costs) would find nothing to switch off.
//
// It holds by what the files can contain, not by guessing what git will
// pick: a driver key lives in a [filter…], [diff…] or [merge…] section
// (git takes a section name right after "[", in any case), and further
// files come in only through [include…]. Every .git directory from dir up
// to the root is read, along the path as given and as resolved, a superset
// of the one git settles on. Anything that
// could send git to another file answers false and the configuration is
// listed: a .git file or commondir (linked worktrees, submodules), a
// directory holding HEAD (git may take it for a bare repository), the
// variables that move the repository or add configuration, a file that
// cannot be read or is larger than git's listing may be.
func driverFree(dir string) bool {
	for _, v := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_WORK_TREE", "GIT_CONFIG",
		"GIT_CONFIG_PARAMETERS", "GIT_CONFIG_COUNT"} {
		if _, ok := os.LookupEnv(v); ok {
			return false
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return false
	}
	// git walks up from its working directory as the kernel resolved it;
	// the path as given leads through other parents when a link is on it.
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return false
	}
	return levelsDriverFree(abs) && (real == abs || levelsDriverFree(real))
}

// levelsDriverFree is driverFree's look at dir and each of its parents.
func levelsDriverFree(dir string) bool {
	for level := dir; ; level = filepath.Dir(level) {
		if exists(filepath.Join(level, "HEAD")) != errNotThere {
			return false
		}
		gitDir := filepath.Join(level, ".git")
		fi, err := os.Stat(gitDir)
		switch {
		case errors.Is(err, fs.ErrNotExist):
		case err != nil || !fi.IsDir():
			return false
		case exists(filepath.Join(gitDir, "commondir")) != errNotThere:
			return false
		default:
			for _, name := range []string{"config", "config.worktree"} {
				if !sectionFree(filepath.Join(gitDir, name)) {
					return false
				}
			}
		}
		if level == filepath.Dir(level) {
			return true
		}
	}
}

// errNotThere is exists' answer for a path that is certainly missing.
var errNotThere = errors.New("not there")

// exists is errNotThere for a missing path, nil for one that exists, and
// another error when it cannot tell.
func exists(path string) error {
	_, err := os.Lstat(path)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, fs.ErrNotExist):
		return errNotThere
	}
	return err
}

// driverSections are the section names (lower case) that can define a
// driver or pull in another file.
var driverSections = []string{"filter", "diff", "merge", "include"}

// sectionFree reports whether the configuration file at path (missing is
// fine) opens none of driverSections, in any case, anywhere: in a comment
// or a value too, which only costs a listing.
func sectionFree(path string) bool {
	// regfile: a FIFO planted as .git/config must not hang coder here, where
	// no timeout reaches (git's own listing ran under its context); anything
	// but a regular file lists the configuration.
	data, err := regfile.Read(path, maxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	return err == nil && !opensSection(data, driverSections)
}

// opensSection reports whether data has "[" followed (after any blanks) by
// one of names, compared ASCII case-insensitively as git does.
func opensSection(data []byte, names []string) bool {
	for i, c := range data {
		if c != '[' {
			continue
		}
		j := i + 1
		for j < len(data) && (data[j] == ' ' || data[j] == '\t') {
			j++
		}
		for _, n := range names {
			if hasFoldPrefix(data[j:], n) {
				return true
			}
		}
	}
	return false
}

// hasFoldPrefix: b starts with lower (ASCII lower case), ignoring ASCII case.
func hasFoldPrefix(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}
