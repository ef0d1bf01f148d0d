package edit

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// Reading real history for TestEditHistory: commits of a git repository,
// their diffs as `git diff` writes them (hunk headers naming the enclosing
// function, as models copy them into @@ lines), and file contents.

// diffFile is one file of a commit's diff.
type diffFile struct {
	path  string
	kind  OpKind
	hunks []diffHunk
}

// diffHunk is one hunk of a unified diff.
type diffHunk struct {
	oldStart, oldCount int
	header             string // the function git names after @@ … @@
	lines              []hunkLine
}

// historyCommit is one commit, its diff and the contents around it.
type historyCommit struct {
	sha           string
	files         []diffFile
	before, after map[string]string
	skip          string // why the patch format cannot express it
}

// gitAttributes asks git for the language-aware hunk headers.
const gitAttributes = "*.go diff=golang\n*.py diff=python\n*.rs diff=rust\n*.cs diff=csharp\n*.md diff=markdown\n*.java diff=java\n*.rb diff=ruby\n*.php diff=php\n*.c diff=cpp\n*.h diff=cpp\n*.cpp diff=cpp\n*.css diff=css\n*.html diff=html\n*.ex diff=elixir\n*.exs diff=elixir\n"

// historyRepo reads commits of one repository.
type historyRepo struct {
	dir, attrs string
	cat        *exec.Cmd
	catIn      io.WriteCloser
	catOut     *bufio.Reader
}

func openHistory(t *testing.T, dir string) *historyRepo {
	t.Helper()
	attrs := filepath.Join(t.TempDir(), "attributes")
	if err := os.WriteFile(attrs, []byte(gitAttributes), 0o644); err != nil {
		t.Fatal(err)
	}
	r := &historyRepo{dir: dir, attrs: attrs}
	r.cat = exec.Command("git", "-C", dir, "cat-file", "--batch")
	var err error
	if r.catIn, err = r.cat.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := r.cat.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	r.catOut = bufio.NewReaderSize(out, 1<<20)
	if err := r.cat.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = r.catIn.Close(); _ = r.cat.Wait() })
	return r
}

func (r *historyRepo) git(args ...string) (string, error) {
	cmd := exec.Command("git", append([]string{"-C", r.dir, "-c", "core.attributesFile=" + r.attrs, "-c", "core.quotePath=false"}, args...)...)
	out, err := cmd.Output()
	return string(out), err
}

// commits lists n non-merge commits: the newest, or with manyHunks the
// newest half and, of the 10n before them, the half with the most hunks
// (the commits where repeated context and repeated anchors come up).
func (r *historyRepo) commits(n int, manyHunks bool) ([]string, error) {
	if !manyHunks {
		out, err := r.git("log", "--no-merges", "--format=%H", "-n", strconv.Itoa(n))
		return strings.Fields(out), err
	}
	out, err := r.git("log", "--no-merges", "--format=%H", "-n", strconv.Itoa(10*n))
	if err != nil {
		return nil, err
	}
	type counted struct {
		sha   string
		hunks int
	}
	var all []counted
	for _, sha := range strings.Fields(out) {
		// One commit at a time: a snapshot may lack a large blob, which
		// fails only the commits that touch it (load skips them too).
		diff, _ := r.git("diff-tree", "-p", "-U0", "--no-color", "--no-ext-diff", sha+"^", sha)
		all = append(all, counted{sha, strings.Count(diff, "\n@@ -")})
	}
	newest := min(n/2, len(all))
	rest := all[newest:]
	sort.SliceStable(rest, func(i, j int) bool { return rest[i].hunks > rest[j].hunks })
	var shas []string
	for _, c := range append(all[:newest:newest], rest[:min(n-newest, len(rest))]...) {
		shas = append(shas, c.sha)
	}
	return shas, nil
}

// blob is the content of path at rev ("" and false when absent).
func (r *historyRepo) blob(rev, path string) (string, bool, error) {
	if _, err := fmt.Fprintf(r.catIn, "%s:%s\n", rev, path); err != nil {
		return "", false, err
	}
	header, err := r.catOut.ReadString('\n')
	if err != nil {
		return "", false, err
	}
	if strings.HasSuffix(header, " missing\n") { // the name may hold spaces
		return "", false, nil
	}
	f := strings.Fields(header)
	if len(f) != 3 {
		return "", false, fmt.Errorf("cat-file: %q", header)
	}
	size, _ := strconv.Atoi(f[2])
	buf := make([]byte, size+1)
	if _, err := io.ReadFull(r.catOut, buf); err != nil {
		return "", false, err
	}
	return string(buf[:size]), true, nil
}

// historyLimits keep the measurement to commits a model would make in one
// call or a few.
const (
	historyMaxFiles = 40
	historyMaxLines = 4000
)

// load reads one commit: its diff against its first parent and the
// contents of the files it touches.
func (r *historyRepo) load(sha string) (historyCommit, error) {
	c := historyCommit{sha: sha, before: map[string]string{}, after: map[string]string{}}
	diff, err := r.git("diff-tree", "-p", "-U3", "--no-renames", "--no-color", "--no-ext-diff", sha+"^", sha)
	if err != nil {
		c.skip = "root commit"
		return c, nil
	}
	c.files, c.skip = parseGitDiff(diff)
	if c.skip == "" && len(c.files) == 0 {
		c.skip = "no file changes"
	}
	if c.skip == "" && len(c.files) > historyMaxFiles {
		c.skip = "more than 40 files"
	}
	if c.skip == "" && strings.Count(diff, "\n") > historyMaxLines {
		c.skip = "more than 4000 diff lines"
	}
	if c.skip != "" {
		return c, nil
	}
	for _, f := range c.files {
		for rev, into := range map[string]map[string]string{sha + "^": c.before, sha: c.after} {
			s, ok, err := r.blob(rev, f.path)
			if err != nil {
				return c, err
			}
			if ok {
				into[f.path] = s
			}
			if !utf8.ValidString(s) || strings.ContainsRune(s, 0) {
				c.skip = "a file is not UTF-8 text (a model's JSON cannot carry it)"
			}
		}
	}
	return c, nil
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@ ?(.*)$`)

// parseGitDiff reads `git diff-tree -p` output; skip says why the patch
// format cannot express the commit (binary files, links, submodules).
func parseGitDiff(diff string) ([]diffFile, string) {
	var files []diffFile
	var cur *diffFile
	var h *diffHunk
	for _, l := range strings.Split(strings.TrimSuffix(diff, "\n"), "\n") {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			rest := strings.TrimPrefix(l, "diff --git ")
			if strings.HasPrefix(rest, `"`) {
				return nil, "a quoted path"
			}
			path := strings.TrimPrefix(rest[:(len(rest)-1)/2], "a/")
			files = append(files, diffFile{path: path, kind: UpdateFile})
			cur, h = &files[len(files)-1], nil
		case cur == nil:
		case h == nil && strings.HasPrefix(l, "new file mode"):
			cur.kind = AddFile
			if !strings.HasSuffix(l, "644") && !strings.HasSuffix(l, "755") {
				return nil, "a link or submodule"
			}
		case h == nil && strings.HasPrefix(l, "deleted file mode"):
			cur.kind = DeleteFile
		case h == nil && (strings.HasPrefix(l, "new mode") && !strings.HasSuffix(l, "644") && !strings.HasSuffix(l, "755")):
			return nil, "a link or submodule"
		case strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "GIT binary patch"):
			return nil, "a binary file"
		case strings.HasPrefix(l, "index ") && (strings.HasSuffix(l, " 120000") || strings.HasSuffix(l, " 160000")):
			return nil, "a link or submodule"
		case strings.HasPrefix(l, "@@ "):
			m := hunkHeader.FindStringSubmatch(l)
			if m == nil {
				return nil, "an unreadable hunk header"
			}
			start, _ := strconv.Atoi(m[1])
			count := 1
			if m[2] != "" {
				count, _ = strconv.Atoi(m[2])
			}
			cur.hunks = append(cur.hunks, diffHunk{oldStart: start, oldCount: count, header: strings.TrimSpace(m[3])})
			h = &cur.hunks[len(cur.hunks)-1]
		case h == nil:
		case strings.HasPrefix(l, `\`):
			if len(h.lines) > 0 {
				h.lines[len(h.lines)-1].noEOL = true
			}
		case l != "" && (l[0] == ' ' || l[0] == '-' || l[0] == '+'):
			h.lines = append(h.lines, hunkLine{op: l[0], text: l[1:]})
		}
	}
	for _, f := range files {
		if f.kind == UpdateFile && len(f.hunks) == 0 {
			return nil, "a mode change alone"
		}
	}
	return files, ""
}

// windowsCheckout is a Windows checkout of an LF file (autocrlf): every LF
// becomes CRLF, a CRLF already there stays.
func windowsCheckout(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "\r\n", "\n"), "\n", "\r\n")
}

// sideOf is one side of a hunk's lines.
func sideOf(lines []hunkLine, skip byte) []string {
	var out []string
	for _, l := range lines {
		if l.op != skip {
			out = append(out, l.text)
		}
	}
	return out
}
