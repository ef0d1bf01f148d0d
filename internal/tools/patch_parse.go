package tools

import (
	"fmt"
	"regexp"
	"strings"
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

type patchKind int

const (
	patchAdd patchKind = iota
	patchDelete
	patchUpdate
)

func (k patchKind) String() string {
	return [...]string{"Add", "Delete", "Update"}[k]
}

// patchOp is one file section of a patch.
type patchOp struct {
	kind   patchKind
	path   string
	moveTo string
	add    string // the content of an added file
	hunks  []patchHunk
}

// patchHunk is one @@ section of an Update.
type patchHunk struct {
	anchors  []string
	old, new []string
	eof      bool
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

// parsePatch parses the text of a patch into its file operations.
func parsePatch(text string) ([]patchOp, error) {
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
	var ops []patchOp
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
var heredocStart = regexp.MustCompile(`^\s*(?:apply_patch|applypatch)?\s*<<-?\s*['"]?(\w+)['"]?\s*$`)

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
		if m := heredocStart.FindStringSubmatch(first); m != nil {
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

func (p *patchParser) parseOp() (patchOp, error) {
	line := strings.TrimRight(p.lines[p.i], " \t")
	h := opHeader(line)
	if h == "" {
		return patchOp{}, fmt.Errorf("line %d: expected *** Add File:, *** Update File:, *** Delete File: or *** End Patch, got %q", p.n+p.i, line)
	}
	op := patchOp{path: strings.TrimSpace(line[len(h):])}
	if op.path == "" {
		return patchOp{}, fmt.Errorf("line %d: %s without a path", p.n+p.i, h)
	}
	p.i++
	switch h {
	case hdrAdd:
		op.kind = patchAdd
		return op, p.parseAdd(&op)
	case hdrDelete:
		op.kind = patchDelete
		return op, nil
	}
	op.kind = patchUpdate
	if p.i < len(p.lines) && strings.HasPrefix(p.lines[p.i], hdrMove) {
		op.moveTo = strings.TrimSpace(p.lines[p.i][len(hdrMove):])
		p.i++
	}
	return op, p.parseHunks(&op)
}

// parseAdd reads the + lines of an added file.
func (p *patchParser) parseAdd(op *patchOp) error {
	var content []string
	blanks := 0 // trailing bare blank lines: kept only if more + lines follow
	for ; p.i < len(p.lines) && !endsSection(p.lines[p.i]); p.i++ {
		l := p.lines[p.i]
		switch {
		case strings.HasPrefix(l, "+"):
			for ; blanks > 0; blanks-- {
				content = append(content, "")
			}
			content = append(content, l[1:])
		case strings.TrimSpace(l) == "":
			blanks++
		default:
			return fmt.Errorf("line %d: in *** Add File: %s every line must start with +, got %q", p.n+p.i, op.path, l)
		}
	}
	if len(content) > 0 {
		op.add = strings.Join(content, "\n") + "\n"
	}
	return nil
}

// parseHunks reads the hunks of an Update section.
func (p *patchParser) parseHunks(op *patchOp) error {
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
		case strings.HasPrefix(l, "*** "):
			return fmt.Errorf("line %d: unknown header %q in *** Update File: %s", p.n+p.i, l, op.path)
		default:
			if cur == nil {
				cur = &hunkBuilder{} // the first @@ may be left out
			}
			cur.add(l)
		}
	}
	flush()
	if len(op.hunks) == 0 && op.moveTo == "" {
		return fmt.Errorf("line %d: *** Update File: %s has no hunks (lines starting with space, - or +)", header, op.path)
	}
	return nil
}

// unifiedRange matches a unified diff hunk header a model wrote after @@.
var unifiedRange = regexp.MustCompile(`^-\d+(?:,\d+)?\s+\+\d+(?:,\d+)?\s*@@(.*)$`)

// parseAnchor is the anchor text of an @@ line: "@@ func main()" gives
// "func main()"; line numbers of a unified diff header are dropped, since
// a model's line numbers are rarely right.
func parseAnchor(l string) string {
	a := strings.TrimSpace(strings.TrimPrefix(l, "@@"))
	if m := unifiedRange.FindStringSubmatch(a); m != nil {
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
	op   byte // ' ', '-' or '+'
	text string
	bare bool // an empty line with no leading space at all
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
// separate sections more often than they are context). ok is false for a
// hunk with no lines.
func (b *hunkBuilder) build() (patchHunk, bool) {
	if b == nil {
		return patchHunk{}, false
	}
	lines := b.lines
	for len(lines) > 0 && lines[len(lines)-1].bare {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return patchHunk{}, false
	}
	h := patchHunk{anchors: b.anchors, eof: b.eof}
	for _, l := range lines {
		if l.op != '+' {
			h.old = append(h.old, l.text)
		}
		if l.op != '-' {
			h.new = append(h.new, l.text)
		}
	}
	return h, true
}
