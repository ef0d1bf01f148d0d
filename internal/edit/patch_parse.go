package edit

import (
	"fmt"
	"regexp"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// The patch format (openai/codex's apply_patch):
//
//	*** Begin Patch
//	*** Add File: path        then lines starting with +
//	*** Delete File: path
//	*** Update File: path
//	*** Move to: new/path     optional
//	@@ anchor line            optional; several in a row narrow down
//	 context / -removed / +added
//	*** End of File           the hunk ends at the end of the file
//	*** End Patch
//
// Parsing is lenient about what models get wrong without ambiguity: a
// heredoc or Markdown fence around the patch, CRLF, a missing first @@, a
// missing End Patch, blank context lines without their space.

// OpKind is what a file section of a patch does to its file.
type OpKind int

const (
	AddFile OpKind = iota
	DeleteFile
	UpdateFile
)

func (k OpKind) String() string {
	return [...]string{"Add", "Delete", "Update"}[k]
}

// FileOp is one file section of a patch.
type FileOp struct {
	Kind   OpKind
	Path   string
	MoveTo string // an Update's new path; "" when it stays
	Add    string // the content of an added file
	hunks  []patchHunk
}

// patchHunk is one @@ section of an Update.
type patchHunk struct {
	anchors []string
	// lines are the hunk's lines in the model's order: which it keeps,
	// removes and adds is its own account of the change.
	lines []hunkLine
	eof   bool
	// bareTail counts the blank lines without their leading space kept at
	// the end because *** End of File followed them.
	bareTail int
}

// old is the text the hunk expects: context and - lines.
func (h patchHunk) old() []string { return h.side('+') }

// new is the text the hunk leaves: context and + lines.
func (h patchHunk) new() []string { return h.side('-') }

func (h patchHunk) side(skip byte) []string {
	var out []string
	for _, l := range h.lines {
		if l.op != skip {
			out = append(out, l.text)
		}
	}
	return out
}

// script is the hunk as a line diff of old to new.
func (h patchHunk) script() []lcs.Diff {
	var ds []lcs.Diff
	i, j := 0, 0
	for k := 0; k < len(h.lines); {
		if h.lines[k].op == ' ' {
			i, j, k = i+1, j+1, k+1
			continue
		}
		d := lcs.Diff{Start: i, End: i, ReplStart: j, ReplEnd: j}
		for ; k < len(h.lines) && h.lines[k].op != ' '; k++ {
			if h.lines[k].op == '-' {
				d.End++
			} else {
				d.ReplEnd++
			}
		}
		ds = append(ds, d)
		i, j = d.End, d.ReplEnd
	}
	return ds
}

// noFinalNewline says which sides of the hunk end the file without a
// final newline ("\ No newline at end of file" after their last line).
func (h patchHunk) noFinalNewline() (old, new bool) {
	for _, l := range h.lines {
		if l.noEOL {
			old = old || l.op != '+'
			new = new || l.op != '-'
		}
	}
	return old, new
}

// withoutBareTail is the hunk without its trailing bare blank lines: a
// model may write one before *** End of File that the file does not have.
func (h patchHunk) withoutBareTail() patchHunk {
	h.lines = h.lines[:len(h.lines)-h.bareTail]
	h.bareTail = 0
	return h
}

// header names the hunk in messages: "@@ func main".
func (h patchHunk) header() string {
	if len(h.anchors) == 0 {
		return ""
	}
	return "@@ " + strings.Join(h.anchors, " @@ ")
}

const (
	hdrBegin  = "*** Begin Patch"
	hdrEnd    = "*** End Patch"
	hdrAdd    = "*** Add File:"
	hdrDelete = "*** Delete File:"
	hdrUpdate = "*** Update File:"
	hdrMove   = "*** Move to:"
	hdrEOF    = "*** End of File"
)

// patchParser walks the lines of a patch; n is the number shown in errors
// of lines[0].
type patchParser struct {
	lines []string
	i, n  int
}

// ParsePatch parses the text of a patch into its file operations.
func ParsePatch(text string) ([]FileOp, error) {
	lines, first := unwrapPatch(text)
	p := &patchParser{lines: lines, n: first}
	if len(lines) == 0 {
		return nil, fmt.Errorf("the patch is empty; start it with %q", hdrBegin)
	}
	if strings.TrimSpace(lines[0]) == hdrBegin {
		p.i++
	} else if opHeader(lines[0]) == "" {
		return nil, fmt.Errorf("line %d: the patch must start with %q, got %q", p.n, hdrBegin, lines[0])
	}
	var ops []FileOp
	for p.skipBlank(); p.i < len(p.lines); p.skipBlank() {
		if strings.TrimRight(p.lines[p.i], " \t") == hdrEnd {
			break
		}
		op, err := p.parseOp()
		if err != nil {
			return nil, err
		}
		ops = append(ops, op)
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("the patch has no file sections (*** Add File:, *** Update File:, *** Delete File:)")
	}
	return ops, nil
}

// heredocStart matches the first line of `apply_patch <<'EOF'`.
var heredocStart = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^\s*(?:apply_patch|applypatch)?\s*<<-?\s*['"]?(\w+)['"]?\s*$`)
})

// unwrapPatch splits text into lines (CRLF tolerated), without the blank
// lines around it and without a heredoc or Markdown fence wrapper. first is
// the 1-based line number of the first line returned.
func unwrapPatch(text string) ([]string, int) {
	lines := strings.Split(strings.ReplaceAll(text, "\r\n", "\n"), "\n")
	lo, hi := 0, len(lines)
	trim := func() {
		for lo < hi && strings.TrimSpace(lines[lo]) == "" {
			lo++
		}
		for hi > lo && strings.TrimSpace(lines[hi-1]) == "" {
			hi--
		}
	}
	for range 2 { // a heredoc inside a fence, or the other way round
		trim()
		if lo == hi {
			break
		}
		first := strings.TrimSpace(lines[lo])
		if m := heredocStart().FindStringSubmatch(first); m != nil {
			lo++
			if hi > lo && strings.TrimSpace(lines[hi-1]) == m[1] {
				hi--
			}
		} else if strings.HasPrefix(first, "```") {
			lo++
			if hi > lo && strings.TrimSpace(lines[hi-1]) == "```" {
				hi--
			}
		}
	}
	trim()
	return lines[lo:hi], lo + 1
}

func (p *patchParser) skipBlank() {
	for p.i < len(p.lines) && strings.TrimSpace(p.lines[p.i]) == "" {
		p.i++
	}
}

// opHeader is the header prefix line starts with, or "".
func opHeader(line string) string {
	// Headers start at column 0: " *** Update File:" is a context line.
	line = strings.TrimRight(line, " \t")
	for _, h := range []string{hdrAdd, hdrDelete, hdrUpdate} {
		// Case is forgiven: "*** Update file:" is no less clear.
		if len(line) >= len(h) && strings.EqualFold(line[:len(h)], h) {
			return h
		}
	}
	return ""
}

// endsSection reports whether line starts the next file section or ends
// the patch.
func endsSection(line string) bool {
	return opHeader(line) != "" || strings.TrimRight(line, " \t") == hdrEnd
}

func (p *patchParser) parseOp() (FileOp, error) {
	line := strings.TrimRight(p.lines[p.i], " \t")
	h := opHeader(line)
	if h == "" {
		return FileOp{}, fmt.Errorf("line %d: expected *** Add File:, *** Update File:, *** Delete File: or *** End Patch, got %q", p.n+p.i, line)
	}
	op := FileOp{Path: strings.TrimSpace(line[len(h):])}
	if op.Path == "" {
		return FileOp{}, fmt.Errorf("line %d: %s without a path", p.n+p.i, h)
	}
	p.i++
	switch h {
	case hdrAdd:
		op.Kind = AddFile
		return op, p.parseAdd(&op)
	case hdrDelete:
		op.Kind = DeleteFile
		return op, nil
	}
	op.Kind = UpdateFile
	if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], hdrMove) {
		op.MoveTo = strings.TrimSpace(p.lines[p.i][len(hdrMove):])
		p.i++
	}
	return op, p.parseHunks(&op)
}

// parseAdd reads the + lines of an added file.
func (p *patchParser) parseAdd(op *FileOp) error {
	var content []string
	blanks := 0 // trailing bare blank lines: kept only if more + lines follow
	noEOL := false
	for ; p.i < len(p.lines) && !endsSection(p.lines[p.i]); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "+"):
			for ; blanks > 0; blanks-- {
				content = append(content, "")
			}
			content, noEOL = append(content, l[1:]), false
		case strings.HasPrefix(l, `\`) && len(content) > 0: // "\ No newline at end of file"
			noEOL = true
		case strings.TrimSpace(l) == "":
			blanks++
		default:
			return fmt.Errorf("line %d: in *** Add File: %s every line must start with +, got %q", p.n+p.i, op.Path, l)
		}
	}
	if len(content) > 0 {
		op.Add = strings.Join(content, "\n")
		if !noEOL {
			op.Add += "\n"
		}
	}
	return nil
}

// parseHunks reads the hunks of an Update section.
func (p *patchParser) parseHunks(op *FileOp) error {
	header := p.n + p.i - 1
	var cur *hunkBuilder
	flush := func() {
		if h, ok := cur.build(); ok {
			op.hunks = append(op.hunks, h)
		}
		cur = nil
	}
	for ; p.i < len(p.lines) && !endsSection(p.lines[p.i]); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.TrimRight(l, " \t") == hdrEOF:
			if cur != nil {
				cur.eof = true
			}
			flush()
		case strings.HasPrefix(l, "@@"):
			// Anchors with no lines between them narrow down together.
			if cur == nil || len(cur.lines) > 0 {
				flush()
				cur = &hunkBuilder{}
			}
			if a := parseAnchor(l); a != "" {
				cur.anchors = append(cur.anchors, a)
			}
		case strings.HasPrefix(l, `\`): // "\ No newline at end of file"
			if cur != nil && len(cur.lines) > 0 {
				cur.lines[len(cur.lines)-1].noEOL = true
			}
		case strings.HasPrefix(l, "*** "):
			return fmt.Errorf("line %d: unknown header %q in *** Update File: %s", p.n+p.i, l, op.Path)
		default:
			if cur == nil {
				cur = &hunkBuilder{} // the first @@ may be left out
			}
			cur.add(l)
		}
	}
	flush()
	if len(op.hunks) == 0 && op.MoveTo == "" {
		return fmt.Errorf("line %d: *** Update File: %s has no hunks (lines starting with space, - or +)", header, op.Path)
	}
	return nil
}

// unifiedRange matches a unified diff hunk header a model wrote after @@.
var unifiedRange = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@(.*)$`) })

// parseAnchor is the anchor text of an @@ line: "@@ func main()" gives
// "func main()"; line numbers of a unified diff header are dropped, since
// a model's line numbers are rarely right.
func parseAnchor(l string) string {
	a := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if m := unifiedRange().FindStringSubmatch(a); m != nil {
		a = m[1]
	}
	return strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(a), "@@"))
}

// hunkBuilder collects a hunk's lines.
type hunkBuilder struct {
	anchors []string
	lines   []hunkLine
	eof     bool
}

type hunkLine struct {
	op    byte // ' ', '-' or '+'
	text  string
	bare  bool // an empty line with no leading space at all
	noEOL bool // "\ No newline at end of file" follows: the file's last line
}

func (b *hunkBuilder) add(l string) {
	switch {
	case l == "":
		b.lines = append(b.lines, hunkLine{op: ' ', bare: true})
	case l[0] == ' ' || l[0] == '-' || l[0] == '+':
		b.lines = append(b.lines, hunkLine{op: l[0], text: l[1:]})
	default: // a context line whose leading space was lost
		b.lines = append(b.lines, hunkLine{op: ' ', text: l})
	}
}

// build finishes the hunk; bare blank lines at its end are dropped (they
// separate sections more often than they are context) unless *** End of
// File follows them. ok is false for a hunk with no lines.
func (b *hunkBuilder) build() (patchHunk, bool) {
	if b == nil {
		return patchHunk{}, false
	}
	lines := b.lines
	bare := 0
	for bare < len(lines) && lines[len(lines)-1-bare].bare && !lines[len(lines)-1-bare].noEOL {
		bare++
	}
	h := patchHunk{anchors: b.anchors, eof: b.eof}
	if b.eof && bare < len(lines) {
		h.bareTail = bare
	} else {
		lines = lines[:len(lines)-bare]
	}
	if len(lines) == 0 {
		return patchHunk{}, false
	}
	for _, l := range lines {
		l.bare = false
		h.lines = append(h.lines, l)
		h.eof = h.eof || l.noEOL
	}
	return h, true
}
