package repl

import (
	"strings"

	east "github.com/yuin/goldmark/extension/ast"
	"github.com/yuin/goldmark/text"
)

// renderTable lays a Markdown table out in aligned columns two spaces
// apart, the header bold over a dim rule, cells wrapped when the table is
// wider than the terminal. Lines that are not a table render as text.
func (m *mdRenderer) renderTable(lines []string, cols int) []string {
	src := []byte(strings.Join(lines, "\n"))
	doc := markdownParser().Parse(text.NewReader(src))
	var tbl *east.Table
	for n := doc.FirstChild(); n != nil; n = n.NextSibling() {
		if t, ok := n.(*east.Table); ok && tbl == nil {
			tbl = t
		}
	}
	if tbl == nil {
		var rows []string
		for _, l := range lines {
			rows = append(rows, m.block(l, cols)...)
		}
		return rows
	}
	var cells [][][]span // row → cell → spans
	header := 0
	for r := tbl.FirstChild(); r != nil; r = r.NextSibling() {
		var row [][]span
		for c := r.FirstChild(); c != nil; c = c.NextSibling() {
			a := attr(0)
			if _, ok := r.(*east.TableHeader); ok {
				a = attrBold
			}
			row = append(row, m.inlines(c, src, a))
		}
		if _, ok := r.(*east.TableHeader); ok {
			header++
		}
		cells = append(cells, row)
	}
	widths := columnWidths(cells, cols-2*(len(tbl.Alignments)-1))
	var rows []string
	for i, row := range cells {
		rows = append(rows, m.tableRow(row, widths, tbl.Alignments)...)
		if i == header-1 {
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

// tableRow draws one table row; a cell wrapped over several rows makes the
// whole row that tall.
func (m *mdRenderer) tableRow(row [][]span, widths []int, align []east.Alignment) []string {
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
			pad := max(w-width(cell), 0)
			a := east.AlignLeft
			if j < len(align) {
				a = align[j]
			}
			switch a {
			case east.AlignRight:
				b.WriteString(strings.Repeat(" ", pad) + cell)
			case east.AlignCenter:
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
