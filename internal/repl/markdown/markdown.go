// Package markdown draws a model's answers for the terminal as they stream:
// Markdown line by line (tables, highlighted code), or plain text wrapped at
// words; complete rows are final, the incomplete line is a preview. It
// depends only on the style.
package markdown

import (
	"strconv"
	"strings"
	"sync"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/parser"
	"github.com/yuin/goldmark/text"
	"github.com/yuin/goldmark/util"

	"github.com/coder-agent/coder/internal/repl/style"
)

// Markdown for the terminal, in the minimal style of the REPL: no boxes or
// borders, few colours. Headings bold, emphasis as italic and bold, inline
// code cyan, lists and quotes indented, tables aligned in columns, fenced
// code highlighted. Without colour the text keeps its structural marks
// (heading #s, code fences, `code`) and drops the rest.
//
// It renders line by line as the answer streams: a line renders when it is
// complete, a table when its last row is, code lines one by one. goldmark
// (CommonMark) parses each line and table cell; the structure across lines
// (fences, GFM tables, indentation) is tracked here. goldmark's extension
// package (where its GFM table lives) is not used: importing it costs 0.7 ms
// and 260 KB at every start-up, for a table splitter of forty lines.

var (
	mdOnce   sync.Once
	mdParser parser.Parser
)

func markdownParser() parser.Parser {
	mdOnce.Do(func() {
		// The parser alone: goldmark.New would bring its HTML renderer.
		mdParser = parser.NewParser(parser.WithBlockParsers(parser.DefaultBlockParsers()...),
			parser.WithInlineParsers(parser.DefaultInlineParsers()...),
			parser.WithParagraphTransformers(parser.DefaultParagraphTransformers()...))
	})
	return mdParser
}

// mdRenderer renders one answer's Markdown.
type mdRenderer struct {
	st    style.Style
	fence *fenceBlock
	table []string // table lines held until the table ends
	blank bool     // the last row was blank: runs of blank lines show one
}

type fenceBlock struct {
	marker string // ``` or ~~~ (or longer)
	indent string
	diff   bool
	hl     highlighter
}

// line renders one complete source line. A table line is held (no rows)
// until the table ends.
func (m *mdRenderer) Line(src string, cols int) []string {
	if f := m.fence; f != nil {
		if isFenceClose(src, f.marker) {
			m.fence = nil
			if !m.st.Color {
				return []string{src}
			}
			return nil
		}
		m.blank = false
		return []string{m.codeRow(src)}
	}
	trimmed := strings.TrimLeft(src, " \t")
	if strings.HasPrefix(trimmed, "|") {
		m.table = append(m.table, src)
		return nil
	}
	rows := m.Flush(cols)
	if marker, info, ok := fenceOpen(trimmed); ok {
		indent := src[:len(src)-len(trimmed)]
		m.fence = &fenceBlock{marker: marker, indent: indent, hl: highlighter{lang: languageFor(info)},
			diff: strings.HasPrefix(strings.TrimSpace(info), "diff") || strings.HasPrefix(strings.TrimSpace(info), "patch")}
		if !m.st.Color {
			rows = append(rows, src)
		}
		return rows
	}
	if strings.TrimSpace(src) == "" {
		if m.blank {
			return rows
		}
		m.blank = true
		return append(rows, "")
	}
	m.blank = false
	return append(rows, m.block(src, cols)...)
}

// flush renders what is held (a table) and ends an open fence.
func (m *mdRenderer) Flush(cols int) []string {
	if len(m.table) == 0 {
		return nil
	}
	rows := m.renderTable(m.table, cols)
	m.table = nil
	m.blank = false
	return rows
}

// preview renders an incomplete line for the live region. stable reports
// that all rows but the last will look the same when the line completes:
// inline marks opened so far are closed, so the rows may be committed.
func (m *mdRenderer) Preview(partial string, cols int) (rows []string, stable bool) {
	if m.fence != nil {
		return []string{m.codeRow(partial)}, false
	}
	rows = m.held()
	trimmed := strings.TrimLeft(partial, " \t")
	if strings.HasPrefix(trimmed, "|") || strings.HasPrefix(trimmed, "```") || strings.HasPrefix(trimmed, "~~~") {
		return append(rows, m.st.Dim(partial)), false
	}
	return append(rows, m.block(partial, cols)...), len(rows) == 0 && inlineClosed(partial)
}

// held shows the table lines waiting for the table's end, as they came.
func (m *mdRenderer) held() []string {
	var rows []string
	for _, l := range m.table {
		rows = append(rows, m.st.Dim(l))
	}
	return rows
}

func (m *mdRenderer) codeRow(src string) string {
	f := m.fence
	if !m.st.Color {
		return style.ExpandTabs(src)
	}
	line := style.ExpandTabs(strings.TrimPrefix(src, f.indent))
	if f.diff {
		return "  " + DiffLine(m.st, line)
	}
	return "  " + paint(m.st, f.hl.line(line))
}

// block renders one line that is not code or a table: its leading spaces
// are its indentation (nested lists, continuations), the rest is parsed.
func (m *mdRenderer) block(src string, cols int) []string {
	body := strings.TrimLeft(src, " \t")
	indent := style.Width(style.ExpandTabs(src[:len(src)-len(body)]))
	lead := []span{{text: strings.Repeat(" ", indent)}}
	b := []byte(body)
	doc := markdownParser().Parse(text.NewReader(b))
	var rows []string
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		rows = append(rows, m.node(n, b, lead, lead, cols)...)
	}
	if len(rows) == 0 {
		rows = []string{strings.Repeat(" ", indent) + body}
	}
	return rows
}

// node renders a block node with first and rest as its rows' leads.
func (m *mdRenderer) node(n ast.Node, src []byte, first, rest []span, cols int) []string {
	switch n := n.(type) {
	case *ast.Heading:
		spans := m.inlines(n, src, attrBold)
		if !m.st.Color {
			spans = append([]span{{text: strings.Repeat("#", n.Level) + " "}}, spans...)
		}
		return wrapSpans(m.st, spans, cols, first, rest)
	case *ast.Paragraph, *ast.TextBlock:
		return wrapSpans(m.st, m.inlines(n, src, 0), cols, first, rest)
	case *ast.List:
		var rows []string
		num := n.Start
		for item := n.FirstChild(); item != nil; item = item.NextSibling() {
			marker := "- "
			if n.IsOrdered() {
				marker = strconv.Itoa(num) + string(n.Marker) + " "
				num++
			}
			mark := append(clone(first), span{text: marker, a: attrDim})
			hang := append(clone(rest), span{text: strings.Repeat(" ", len(marker))})
			rows = append(rows, m.children(item, src, mark, hang, cols)...)
			first = rest
		}
		return rows
	case *ast.Blockquote:
		q := span{text: "> ", a: attrDim}
		return m.children(n, src, append(clone(first), q), append(clone(rest), q), cols)
	case *ast.ThematicBreak:
		return []string{paint(m.st, append(clone(first), span{text: "---", a: attrDim}))}
	default:
		var b strings.Builder
		for i := 0; i < n.Lines().Len(); i++ {
			seg := n.Lines().At(i)
			b.Write(seg.Value(src))
		}
		t := strings.TrimRight(b.String(), "\n")
		if t == "" {
			return nil
		}
		return []string{paint(m.st, append(clone(first), span{text: t}))}
	}
}

func (m *mdRenderer) children(n ast.Node, src []byte, first, rest []span, cols int) []string {
	var rows []string
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		rows = append(rows, m.node(c, src, first, rest, cols)...)
		first = rest
	}
	if len(rows) == 0 {
		rows = []string{paint(m.st, first)}
	}
	return rows
}

// inlines flattens a block's inline content into spans.
func (m *mdRenderer) inlines(n ast.Node, src []byte, a attr) []span {
	var out []span
	for c := n.FirstChild(); c != nil; c = c.NextSibling() {
		switch c := c.(type) {
		case *ast.Text:
			out = append(out, span{text: textValue(c.Segment.Value(src), c.IsRaw()), a: a})
			if c.HardLineBreak() {
				out = append(out, span{text: "\n"})
			} else if c.SoftLineBreak() {
				out = append(out, span{text: " "})
			}
		case *ast.String:
			out = append(out, span{text: textValue(c.Value, c.IsRaw()), a: a})
		case *ast.CodeSpan:
			code := plainText(c, src)
			if !m.st.Color {
				code = "`" + code + "`"
			}
			out = append(out, span{text: code, a: a | attrCode})
		case *ast.Emphasis:
			e := attrItalic
			if c.Level >= 2 {
				e = attrBold
			}
			out = append(out, m.inlines(c, src, a|e)...)
		case *ast.Link:
			label := m.inlines(c, src, a|attrUnderline)
			out = append(out, label...)
			if dest := string(c.Destination); dest != "" && dest != plainText(c, src) {
				out = append(out, span{text: " (" + dest + ")", a: attrDim})
			}
		case *ast.AutoLink:
			out = append(out, span{text: string(c.URL(src)), a: a | attrUnderline})
		case *ast.Image:
			out = append(out, span{text: "[image: " + plainText(c, src) + "] (" + string(c.Destination) + ")", a: a | attrDim})
		case *ast.RawHTML:
			var b strings.Builder
			for i := 0; i < c.Segments.Len(); i++ {
				seg := c.Segments.At(i)
				b.Write(seg.Value(src))
			}
			out = append(out, span{text: b.String(), a: a})
		default:
			out = append(out, m.inlines(c, src, a)...)
		}
	}
	return out
}

// textValue resolves backslash escapes and entities, as a renderer must.
func textValue(b []byte, raw bool) string {
	if raw {
		return string(b)
	}
	return string(util.ResolveEntityNames(util.ResolveNumericReferences(util.UnescapePunctuations(b))))
}

// plainText is a node's text without any marks.
func plainText(n ast.Node, src []byte) string {
	var b strings.Builder
	_ = ast.Walk(n, func(c ast.Node, entering bool) (ast.WalkStatus, error) {
		if !entering {
			return ast.WalkContinue, nil
		}
		switch c := c.(type) {
		case *ast.Text:
			b.Write(c.Segment.Value(src))
		case *ast.String:
			b.Write(c.Value)
		}
		return ast.WalkContinue, nil
	})
	return b.String()
}

func clone(s []span) []span { return append([]span(nil), s...) }

// fenceOpen recognises ``` or ~~~ (three or more) and the info string.
func fenceOpen(trimmed string) (marker, info string, ok bool) {
	for _, c := range []byte{'`', '~'} {
		n := 0
		for n < len(trimmed) && trimmed[n] == c {
			n++
		}
		if n >= 3 && (c == '~' || !strings.Contains(trimmed[n:], "`")) {
			return trimmed[:n], trimmed[n:], true
		}
	}
	return "", "", false
}

func isFenceClose(src, marker string) bool {
	t := strings.TrimSpace(src)
	return strings.HasPrefix(t, marker) && strings.Trim(t, marker[:1]) == ""
}

// inlineClosed reports that no inline mark (code, emphasis, link) opened
// in s is still waiting for its end.
func inlineClosed(s string) bool {
	single := strings.Count(strings.ReplaceAll(s, "**", ""), "*")
	return strings.Count(s, "`")%2 == 0 && strings.Count(s, "**")%2 == 0 && single%2 == 0 && strings.Count(s, "~~")%2 == 0 &&
		strings.Count(s, "[") == strings.Count(s, "]") && strings.Count(s, "(") == strings.Count(s, ")")
}

// DiffLine colours a line of a unified diff: + green, - red, headers and
// hunks dim.
func DiffLine(st style.Style, l string) string {
	switch {
	case strings.HasPrefix(l, "+++"), strings.HasPrefix(l, "---"), strings.HasPrefix(l, "@@"),
		strings.HasPrefix(l, "diff "), strings.HasPrefix(l, "index "):
		return st.Dim(l)
	case strings.HasPrefix(l, "+"):
		return st.Green(l)
	case strings.HasPrefix(l, "-"):
		return st.Red(l)
	}
	return l
}
