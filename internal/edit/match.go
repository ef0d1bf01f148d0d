package edit

import (
	"iter"
	"regexp"
	"strings"
	"sync"

	"github.com/aymanbagabas/go-udiff/lcs"
)

// The matching ladder shared by edit and patch. Pure functions over strings:
// no I/O, so it can be fuzzed.
//
// Each rung forgives one more kind of drift that models really produce. The
// first rung with any candidate decides: one candidate is used, several are
// refused (a looser rung would only find more). Nothing like "first and last
// line match, ignore the middle" is ever tried.

// rung is one step of the ladder.
type rung struct {
	// name completes "matched after …"; "" for the exact rung.
	name      string
	tolerant  bool
	opts      normOpts
	unescape  bool // the model double-escaped \n, \t, \" in its text
	trimBlank bool // the model added blank lines around its text
	numbered  bool // the model copied read's line-number prefixes
	// eol: the model copied the \r of a CRLF at the end of its text.
	eol bool
}

var allDrift = normOpts{trailing: true, indent: true, unicode: true}

var ladder = []rung{
	{name: ""},
	{name: "normalising line endings (CRLF/LF)", tolerant: true, eol: true},
	{name: "ignoring trailing whitespace", tolerant: true, opts: normOpts{trailing: true}},
	{name: "ignoring indentation differences", tolerant: true, opts: normOpts{trailing: true, indent: true}},
	{name: "normalising Unicode punctuation (quotes, dashes, spaces, ellipsis)", tolerant: true, opts: allDrift},
	{name: `unescaping \n, \t and \" sequences`, tolerant: true, opts: allDrift, unescape: true},
	{name: "ignoring blank lines at the start and end", tolerant: true, opts: allDrift, trimBlank: true},
	{name: "removing line-number prefixes copied from read's output", tolerant: true, opts: allDrift, numbered: true},
}

// tolerantMaxBytes bounds the files the tolerant rungs look at: their views
// cost several bytes of memory per byte of file.
const tolerantMaxBytes = 8 << 20

// maxCandidates bounds the matches counted for an ambiguity message.
const maxCandidates = 1000

// maxLinesListed bounds the line numbers an ambiguity refusal lists.
const maxLinesListed = 10

// matchQuery is what to find in a text.
type matchQuery struct {
	old, new string
	// from and to bound the search; to 0 means the end of the text.
	from, to int
	// lines requires the match to start at a line start (patch hunks).
	lines bool
	// atEOF requires the match to end at the end of the text.
	atEOF bool
	// script is the model's own account of its change, old lines to new
	// lines (a patch hunk's context, - and + lines); nil: computed.
	script []lcs.Diff
	// cache keeps the normalised views of one text across queries.
	cache *textCache
	// swapChars: see alignIn.
	swapChars indentSwap
}

// textCache holds what the ladder derives from one text.
type textCache struct {
	views  map[normOpts]normView
	indent *fileIndent
	index  *lineIndex
}

func (c *textCache) view(content string, o normOpts) normView {
	if c.views == nil {
		c.views = map[normOpts]normView{}
	}
	v, ok := c.views[o]
	if !ok {
		v = buildView(content, o, true)
		c.views[o] = v
	}
	return v
}

func (c *textCache) fileIndent(content string) fileIndent {
	if c.indent == nil {
		fi := fileIndentOf(content)
		c.indent = &fi
	}
	return *c.indent
}

// match is a unique match: content[start:end] is to become repl.
type match struct {
	start, end int
	repl       string
	rung       rung
	reindented bool
	swapped    indentSwap // the model swapped tabs and spaces in its indentation
}

// candidate is one place old matched, before uniqueness is known.
type candidate struct{ start, end int }

// MatchError says why a query has no unique match.
type MatchError struct {
	count int   // 0: not found
	lines []int // first lines of the candidates (at most maxLinesListed)
	rung  rung  // the rung that found them
	// closest is the most similar region, numbered like read's output.
	closest string
	// replaceAll: the exact search of replace_all found nothing; count,
	// lines and rung tell what the tolerant ladder would have found.
	replaceAll bool
	// unfaithful says why a unique match was not applied: the result
	// would have changed lines the model's own texts leave alone.
	unfaithful string
	// notAtEnd: the texts differ only by the final newline, and old
	// matches elsewhere than at the end of the file.
	notAtEnd bool
}

// rungHits is what one rung of the ladder found.
type rungHits struct {
	rung      rung
	old, repl string // the model's texts as the rung adapted them
	cands     []candidate
}

// ladderHits runs the ladder over content, rung by rung, and yields what
// each rung that applies finds (possibly nothing).
func ladderHits(content string, q matchQuery) iter.Seq[rungHits] {
	if q.cache == nil {
		q.cache = &textCache{}
	}
	return func(yield func(rungHits) bool) {
		for _, r := range ladder {
			if h, ok := r.hits(content, q); ok && !yield(h) {
				return
			}
		}
	}
}

// hits is what one rung finds of q in content; ok is false when the rung
// does not apply (it would search for what an earlier one did, or the
// text is too large for the tolerant rungs). q.cache must be set.
func (r rung) hits(content string, q matchQuery) (rungHits, bool) {
	if q.to <= 0 || q.to > len(content) {
		q.to = len(content)
	}
	if r.tolerant && len(content) > tolerantMaxBytes {
		return rungHits{}, false
	}
	old, repl, ok := r.transform(q.old, q.new)
	if !ok {
		return rungHits{}, false
	}
	h := rungHits{rung: r, old: old, repl: repl}
	if r.tolerant {
		h.cands = tolerantCandidates(content, q.cache.view(content, r.opts), old, r.opts, q)
	} else {
		h.cands = exactCandidates(content, old, q)
	}
	return h, true
}

// findMatch runs the ladder and returns the unique match of q in content.
func findMatch(content string, q matchQuery) (match, *MatchError) {
	if q.cache == nil {
		q.cache = &textCache{}
	}
	for h := range ladderHits(content, q) {
		switch len(h.cands) {
		case 0:
			continue
		case 1:
			return buildMatch(content, h.cands[0], h, q)
		}
		return match{}, &MatchError{count: len(h.cands), lines: candidateLines(content, h.cands), rung: h.rung}
	}
	return match{}, &MatchError{closest: closestRegion(content, q.old, q.from)}
}

// after completes "matches …": "exactly", or "after …" with the rung.
func (r rung) after() string {
	if !r.tolerant {
		return "exactly"
	}
	return "after " + r.name
}

// rewrites reports whether the rung searches for a rewritten old_string
// rather than a normalised one.
func (r rung) rewrites() bool { return r.unescape || r.trimBlank || r.numbered }

// transform adapts the model's texts for a rung; ok false means the rung
// would search for the same thing as an earlier one.
func (r rung) transform(old, repl string) (string, string, bool) {
	switch {
	case r.unescape:
		u := unescape(old)
		if u == old {
			return "", "", false
		}
		// A replacement with real line breaks was not double-escaped.
		if !strings.Contains(repl, "\n") {
			repl = unescape(repl)
		}
		return u, repl, true
	case r.trimBlank:
		o := normaliseEOL(old)
		t, lead, trail := trimBlankLines(o, -1, -1)
		if t == o || t == "" {
			return "", "", false
		}
		repl, _, _ = trimBlankLines(normaliseEOL(repl), lead, trail)
		return t, repl, true
	case r.eol:
		o, ok := strings.CutSuffix(old, "\r")
		if ok && !strings.HasSuffix(o, "\r") {
			repl = strings.TrimSuffix(repl, "\r")
		}
		return o, repl, o != ""
	case r.numbered:
		u, ok := stripLineNumbers(old)
		if !ok {
			return "", "", false
		}
		if n, ok := stripLineNumbers(repl); ok {
			repl = n
		}
		return u, repl, true
	}
	return old, repl, old != ""
}

func exactCandidates(content, old string, q matchQuery) []candidate {
	var cands []candidate
	for i := q.from; i <= q.to-len(old) && len(cands) < maxCandidates; {
		k := strings.Index(content[i:q.to], old)
		if k < 0 {
			break
		}
		s := i + k
		i = s + 1
		if q.lines && s > 0 && content[s-1] != '\n' {
			continue
		}
		if q.atEOF && s+len(old) != len(content) {
			continue
		}
		if splitsCRLF(content, s, s+len(old)) {
			continue // the line-ending rung matches it whole
		}
		cands = append(cands, candidate{s, s + len(old)})
	}
	return cands
}

// tolerantCandidates searches the normalised old in the view v of content
// and maps each hit back to original offsets.
func tolerantCandidates(content string, v normView, old string, o normOpts, q matchQuery) []candidate {
	needle := buildView(old, o, false).text
	if strings.TrimSpace(needle) == "" {
		return nil
	}
	oldLines := strings.Split(normaliseEOL(old), "\n")
	last := oldLines[len(oldLines)-1]
	// Stripping the model's indentation must not let "  x = 1" match inside
	// "max = 1": the match then starts at a line start. Same at the end.
	startAnchored := q.lines || (o.indent && leadingWS(oldLines[0]) != "")
	endAnchored := o.trailing && last != "" && strings.TrimRight(last, " \t") != last
	// A first or last line of old that is whitespace only (part of a
	// blank line, or an indentation) normalises to nothing; the whitespace
	// it stands for in the file belongs to the region, as after an exact
	// match, so that what the model drops of it goes.
	trimsBlank := o.trailing || o.indent
	blankHead := trimsBlank && len(oldLines) > 1 && oldLines[0] != "" && isBlank(oldLines[0])
	blankTail := trimsBlank && len(oldLines) > 1 && last != "" && isBlank(last)
	var cands []candidate
	for ns := 0; ns < len(v.text) && len(cands) < maxCandidates; {
		k := strings.Index(v.text[ns:], needle)
		if k < 0 {
			break
		}
		s, e := ns+k, ns+k+len(needle)
		ns = s + 1
		if !v.validStart(s) || !v.validEnd(e) ||
			(startAnchored && !v.atLineStart(s)) || (endAnchored && !v.atLineEnd(e)) {
			continue
		}
		c := candidate{int(v.start[s]), int(v.end[e-1])}
		// The forgiven whitespace at the edges belongs to the region, so the
		// replacement (re-indented) takes its place instead of adding to it.
		if o.indent && v.atLineStart(s) {
			c.start = lineStartBefore(content, c.start)
		}
		if o.trailing && needle[len(needle)-1] != '\n' && v.atLineEnd(e) {
			c.end = lineTextEnd(content, c.end)
		}
		if blankHead {
			ls := lineStartBefore(content, c.start)
			c.start = ls + len(strings.TrimRight(content[ls:c.start], " \t"))
		}
		if blankTail {
			c.end += len(leadingWS(content[c.end:lineTextEnd(content, c.end)]))
		}
		if c.start < q.from || c.end > q.to || (q.atEOF && c.end != len(content)) {
			continue
		}
		cands = append(cands, c)
	}
	return cands
}

// buildMatch turns the unique candidate into its replacement, aligned with
// the region so that only what the model changed changes, and checks the
// result against the model's own texts.
func buildMatch(content string, c candidate, h rungHits, q matchQuery) (match, *MatchError) {
	script := q.script
	if h.rung.rewrites() {
		script = nil // its lines are no longer the texts the script counts
	}
	in := alignIn{
		region:      content[c.start:c.end],
		old:         h.old,
		new:         h.repl,
		script:      script,
		opts:        h.rung.opts,
		atLineStart: c.start == 0 || content[c.start-1] == '\n',
		eol:         lineBreakAt(content, c.end),
		indent:      q.cache.fileIndent(content),
		swapChars:   q.swapChars,
	}
	if h.rung.opts.indent || q.swapChars != 0 {
		// A file's blocks may indent unlike its whole (a README's HTML
		// block among its lists, a code sample in a document): the lines
		// around the match decide the step and the characters.
		in.indent = localIndent(linesAround(content, c.start, c.end), in.indent)
	}
	out, ok := alignReplacement(in)
	if !ok {
		return match{}, &MatchError{count: 1, rung: h.rung, lines: []int{lineOf(content, c.start)},
			unfaithful: "its lines do not line up with the file's"}
	}
	if out.unplaced {
		return match{}, &MatchError{count: 1, rung: h.rung, lines: []int{lineOf(content, c.start)},
			unfaithful: "its lines indented alike are indented differently in the file, so the indentation of the lines it adds is unclear"}
	}
	if why := unfaithful(content, c, out.repl, h.old, h.repl, script); why != "" {
		return match{}, &MatchError{count: 1, rung: h.rung, lines: []int{lineOf(content, c.start)}, unfaithful: why}
	}
	return match{start: c.start, end: c.end, repl: out.repl, rung: h.rung, reindented: out.reindented, swapped: out.swapped}, nil
}

// lineBreakAt is the line break ending the line that holds offset off, or
// the file's usual one when that line has none.
func lineBreakAt(content string, off int) string {
	nl := strings.IndexByte(content[off:], '\n')
	if nl < 0 {
		return fileEOL(content)
	}
	if at := off + nl; at > 0 && content[at-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

func candidateLines(content string, cands []candidate) []int {
	var lines []int
	for i, c := range cands {
		if i == maxLinesListed {
			break
		}
		lines = append(lines, lineOf(content, c.start))
	}
	return lines
}

// unescape undoes one level of backslash escaping.
func unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == '\\' && i+1 < len(s) {
			if r, ok := escapes[s[i+1]]; ok {
				b.WriteByte(r)
				i++
				continue
			}
		}
		b.WriteByte(c)
	}
	return b.String()
}

var escapes = map[byte]byte{'n': '\n', 't': '\t', 'r': '\r', '"': '"', '\'': '\'', '\\': '\\', '`': '`'}

// trimBlankLines drops up to maxLead blank lines at the start of s and up to
// maxTrail at its end (-1: all) and says how many it dropped. The line break
// ending the last kept line stays.
func trimBlankLines(s string, maxLead, maxTrail int) (out string, lead, trail int) {
	lines := strings.Split(s, "\n")
	n := len(lines)
	if n > 1 && lines[n-1] == "" {
		n-- // the terminator of the last line, not a line
	}
	i, j := 0, n
	for i < j && (maxLead < 0 || i < maxLead) && isBlank(lines[i]) {
		i++
	}
	for j > i && (maxTrail < 0 || n-j < maxTrail) && isBlank(lines[j-1]) {
		j--
	}
	if i == j {
		return "", i, n - j
	}
	out = strings.Join(lines[i:j], "\n")
	if j < len(lines) {
		out += "\n"
	}
	return out, i, n - j
}

// lineNumberPrefix is what read puts before each line: "%6d\t".
var lineNumberPrefix = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^ *[0-9]+\t`) })

// stripLineNumbers removes read's line-number prefixes when every non-empty
// line of s has one; ok is false otherwise.
func stripLineNumbers(s string) (string, bool) {
	lines := strings.Split(normaliseEOL(s), "\n")
	seen := false
	for i, l := range lines {
		if l == "" {
			continue
		}
		loc := lineNumberPrefix().FindStringIndex(l)
		if loc == nil {
			return "", false
		}
		lines[i], seen = l[loc[1]:], true
	}
	return strings.Join(lines, "\n"), seen
}
