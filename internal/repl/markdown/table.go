package markdown

import (
	"strings"

	"github.com/yuin/goldmark/text"

	"github.com/coder-agent/coder/internal/repl/style"
)

// align is a table column's alignment.
type align int

const (
	alignLeft align = iota
	alignCenter
	alignRight
)

// renderTable lays a Markdown (GFM) table out in aligned columns two
// spaces apart, the header bold over a dim rule, cells wrapped when the
// table is wider than the terminal. Lines that are not a table (no
// delimiter row under the header) render as text.
func (m *mdRenderer) renderTable(lines []string, cols int) []string {
	aligns, ok := delimiterRow(lines)
	if !ok {
		var rows []string
		for _, l := range lines {
			rows = append(rows, m.block(l, cols)...)
		}
		return rows
	}
	var cells [][][]span // row → cell → spans
	for i, l := range lines {
		if i == 1 {
			continue // the delimiter row
		}
		a := attr(0)
		if i == 0 {
			a = attrBold
		}
		var row [][]span
		for _, c := range splitCells(l) {
			row = append(row, m.cellSpans(c, a))
		}
		cells = append(cells, row)
	}
	widths := columnWidths(cells, cols-2*(len(aligns)-1))
	var rows []string
	for i, row := range cells {
		rows = append(rows, m.tableRow(row, widths, aligns)...)
		if i == 0 {
			var rule []span
			for j, w := range widths {
				if j > 0 {
					rule = append(rule, span{text: "  "})
				}
				rule = append(rule, span{text: strings.Repeat("-", w), a: attrDim})
			}
			rows = append(rows, paint(m.st, rule))
		}
	}
	return rows
}

// delimiterRow reads the alignments from a table's second line
// (|---|:---:|---:|); ok is false when it is not one.
func delimiterRow(lines []string) (aligns []align, ok bool) {
	if len(lines) < 2 {
		return nil, false
	}
	for _, c := range splitCells(lines[1]) {
		c = strings.TrimSpace(c)
		body := strings.Trim(c, ":")
		if body == "" || strings.Trim(body, "-") != "" {
			return nil, false
		}
		switch {
		case strings.HasPrefix(c, ":") && strings.HasSuffix(c, ":"):
			aligns = append(aligns, alignCenter)
		case strings.HasSuffix(c, ":"):
			aligns = append(aligns, alignRight)
		default:
			aligns = append(aligns, alignLeft)
		}
	}
	return aligns, len(aligns) > 0
}

// splitCells cuts a table line at its pipes: not escaped ones (\|), not
// ones inside `code`.
func splitCells(line string) []string {
	line = strings.TrimSpace(line)
	line = strings.TrimPrefix(line, "|")
	if strings.HasSuffix(line, "|") && !strings.HasSuffix(line, "\\|") {
		line = line[:len(line)-1]
	}
	var (
		cells []string
		cur   strings.Builder
		code  bool
	)
	for i := 0; i < len(line); i++ {
		switch c := line[i]; {
		case c == '\\' && i+1 < len(line) && line[i+1] == '|':
			cur.WriteByte('|')
			i++
		case c == '`':
			code = !code
			cur.WriteByte(c)
		case c == '|' && !code:
			cells = append(cells, strings.TrimSpace(cur.String()))
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(cells, strings.TrimSpace(cur.String()))
}

// cellSpans parses a cell's inline Markdown.
func (m *mdRenderer) cellSpans(cell string, a attr) []span {
	src := []byte(cell)
	doc := markdownParser().Parse(text.NewReader(src))
	var out []span
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		out = append(out, m.inlines(n, src, a)...)
	}
	if len(out) == 0 && cell != "" {
		out = []span{{text: cell, a: a}}
	}
	return out
}

// tableRow draws one table row; a cell wrapped over several rows makes the
// whole row that tall.
func (m *mdRenderer) tableRow(row [][]span, widths []int, aligns []align) []string {
	var wrapped [][]string
	height := 1
	for j, w := range widths {
		var cell []span
		if j < len(row) {
			cell = row[j]
		}
		lines := wrapSpans(m.st, cell, w, nil, nil)
		wrapped = append(wrapped, lines)
		height = max(height, len(lines))
	}
	out := make([]string, height)
	for k := range height {
		var b strings.Builder
		for j, w := range widths {
			if j > 0 {
				b.WriteString("  ")
			}
			cell := ""
			if k < len(wrapped[j]) {
				cell = wrapped[j][k]
			}
			pad := max(w-style.Width(cell), 0)
			a := alignLeft
			if j < len(aligns) {
				a = aligns[j]
			}
			switch a {
			case alignRight:
				b.WriteString(strings.Repeat(" ", pad) + cell)
			case alignCenter:
				b.WriteString(strings.Repeat(" ", pad/2) + cell + strings.Repeat(" ", pad-pad/2))
			default:
				b.WriteString(cell + strings.Repeat(" ", pad))
			}
		}
		out[k] = strings.TrimRight(b.String(), " ")
	}
	return out
}

// columnWidths are the cells' natural widths, the widest columns narrowed
// (to no less than 3 cells) until the table fits avail.
func columnWidths(cells [][][]span, avail int) []int {
	n := 0
	for _, row := range cells {
		n = max(n, len(row))
	}
	widths := make([]int, n)
	for _, row := range cells {
		for j, c := range row {
			widths[j] = max(widths[j], spansWidth(c), 1)
		}
	}
	total := 0
	for _, w := range widths {
		total += w
	}
	for total > avail {
		widest := 0
		for j, w := range widths {
			if w > widths[widest] {
				widest = j
			}
		}
		if widths[widest] <= 3 {
			break
		}
		widths[widest]--
		total--
	}
	return widths
}
