package contextmgr

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"unicode"

	"github.com/coder-agent/coder/internal/paths"
	"github.com/coder-agent/coder/internal/regfile"
)

// AtLimits bounds what @path references attach. Zero fields take the defaults.
type AtLimits struct {
	// MaxFileBytes caps one file (default 100 KiB); the rest is left to
	// the read tool.
	MaxFileBytes int
	// MaxTotalBytes caps all attachments of one message (default 256 KiB);
	// references past it are reported, not attached.
	MaxTotalBytes int
	// MaxDirEntries caps a directory listing (default 200).
	MaxDirEntries int
}

func (l AtLimits) withDefaults() AtLimits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = 100 << 10
	}
	if l.MaxTotalBytes <= 0 {
		l.MaxTotalBytes = 256 << 10
	}
	if l.MaxDirEntries <= 0 {
		l.MaxDirEntries = 200
	}
	return l
}

// binarySniff is how much of a file is checked for NUL bytes, as git does.
const binarySniff = 8000

// ExpandAtRefs attaches the files and directories that input references as
// @path (or @"path with spaces"): an @ at the start or after whitespace, so
// an e-mail address is not a reference. Paths resolve inside workspace;
// anything else, and binary files, are returned in missing as "path: reason"
// for the user and are not sent. The expanded message is input unchanged
// plus one block per attachment; attached lists the paths attached,
// workspace-relative with forward slashes.
func ExpandAtRefs(input, workspace string, limits AtLimits) (expanded string, attached, missing []string) {
	limits = limits.withDefaults()
	var blocks []string
	total := 0
	seen := map[string]bool{}
	for _, ref := range findAtRefs(input) {
		if IsImageRef(ref) {
			continue // sent as an image (FindImages)
		}
		rel, abs, err := resolveRef(ref, workspace)
		if err != nil {
			missing = append(missing, ref+": "+err.Error())
			continue
		}
		if seen[rel] {
			continue
		}
		seen[rel] = true
		block, err := attachment(rel, abs, limits, limits.MaxTotalBytes-total)
		if err != nil {
			missing = append(missing, ref+": "+err.Error())
			continue
		}
		total += len(block)
		blocks = append(blocks, block)
		attached = append(attached, rel)
	}
	if len(blocks) == 0 {
		return input, attached, missing
	}
	return input + "\n\n" + strings.Join(blocks, "\n\n"), attached, missing
}

// findAtRefs returns the referenced paths in order of appearance.
func findAtRefs(input string) []string {
	var refs []string
	for i := 0; i < len(input); i++ {
		if input[i] != '@' || i > 0 && !isSpaceByte(input[i-1]) {
			continue
		}
		rest := input[i+1:]
		if strings.HasPrefix(rest, `"`) {
			end := strings.IndexAny(rest[1:], "\"\n")
			if end > 0 && rest[1+end] == '"' {
				refs = append(refs, rest[1:1+end])
				i += end + 2
			}
			continue
		}
		end := strings.IndexFunc(rest, unicode.IsSpace)
		if end < 0 {
			end = len(rest)
		}
		tok := rest[:end]
		i += end
		if tok != "" && isPathStart(tok[0]) {
			refs = append(refs, tok)
		}
	}
	return refs
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// isPathStart rules out "@@" (diff hunks), "@(", "@{" and other non-paths.
func isPathStart(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' ||
		c == '.' || c == '/' || c == '_' || c == '-' || c == '~' || c >= 0x80
}

// resolveRef turns a reference into a workspace-relative and an absolute
// path. Sentence punctuation after a path ("see @main.go.") and a line
// suffix ("@main.go:42") are dropped when the path with them does not exist. Symlinks are followed, and the target
// must be inside the workspace too.
func resolveRef(ref, workspace string) (rel, abs string, err error) {
	candidates := []string{ref}
	t := strings.TrimRight(ref, ".,;:!?)]}'\"`")
	if t != ref && t != "" {
		candidates = append(candidates, t)
	}
	if i := strings.LastIndexByte(t, ':'); i > 0 && strings.Trim(t[i+1:], "0123456789-") == "" {
		candidates = append(candidates, t[:i]) // "main.go:42" or "main.go:10-20"
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", "", errors.New("workspace unavailable")
	}
	for _, c := range candidates {
		p := filepath.FromSlash(c)
		if !filepath.IsAbs(p) {
			p = filepath.Join(workspace, p)
		}
		if !paths.Within(workspace, p) && !paths.Within(root, p) {
			return "", "", errors.New("outside the workspace")
		}
		real, err := filepath.EvalSymlinks(p)
		if err != nil {
			continue
		}
		if !paths.Within(root, real) {
			return "", "", errors.New("outside the workspace")
		}
		r, _ := filepath.Rel(root, real)
		return filepath.ToSlash(r), real, nil
	}
	return "", "", errors.New("not found")
}

// attachment renders one file or directory, within budget bytes.
func attachment(rel, abs string, l AtLimits, budget int) (string, error) {
	st, err := os.Stat(abs)
	if err != nil {
		return "", errors.New("not found")
	}
	var block string
	switch {
	case st.IsDir():
		block, err = dirBlock(rel, abs, l.MaxDirEntries)
	case st.Mode().IsRegular():
		block, err = fileBlock(rel, abs, st.Size(), l.MaxFileBytes)
	default:
		err = errors.New("not a regular file")
	}
	if err == nil && len(block) > budget {
		err = fmt.Errorf("not attached: over the %d KiB limit for one message", l.MaxTotalBytes>>10)
	}
	return block, err
}

func fileBlock(rel, abs string, size int64, max int) (string, error) {
	f, _, err := regfile.Open(abs)
	if err != nil {
		return "", errors.New("unreadable")
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, int64(max)+1))
	if err != nil {
		return "", errors.New("unreadable")
	}
	if bytes.IndexByte(data[:min(len(data), binarySniff)], 0) >= 0 {
		return "", errors.New("binary file, not attached")
	}
	note := ""
	if len(data) > max {
		data = cutAtLine(data, max)
		note = fmt.Sprintf("\n[truncated: first %d of %d bytes; read the file for the rest]", len(data), size)
	}
	text := strings.ToValidUTF8(string(data), "\uFFFD")
	fence := codeFence(text)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return fmt.Sprintf("[file %s]\n%s\n%s%s%s", rel, fence, text, fence, note), nil
}

// codeFence is a backtick fence longer than any backtick run in text, so
// content holding ``` cannot close the block early.
func codeFence(text string) string {
	longest, run := 0, 0
	for i := 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	return strings.Repeat("`", max(3, longest+1))
}

func dirBlock(rel, abs string, maxEntries int) (string, error) {
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", errors.New("unreadable directory")
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[directory %s]", rel)
	shown := 0
	for _, e := range entries {
		if e.Name() == ".git" {
			continue
		}
		if shown == maxEntries {
			fmt.Fprintf(&b, "\n[… more entries not shown; use the list tool]")
			break
		}
		name := e.Name()
		if e.IsDir() {
			name += "/"
		}
		b.WriteString("\n" + name)
		shown++
	}
	if shown == 0 {
		b.WriteString("\n(empty)")
	}
	return b.String(), nil
}
