package markdown

import (
	"os"
	"strings"
	"testing"

	"github.com/coder-agent/coder/internal/repl/style"
)

// answerMD is an answer with every Markdown construct the renderer draws.
var answerMD = func() string {
	b, err := os.ReadFile("testdata/answer.md")
	if err != nil {
		panic(err)
	}
	return string(b)
}()

// streamAll feeds text in chunks of n bytes and returns every committed row.
func streamAll(lr LineRenderer, text string, n, cols int) (rows []string, early bool) {
	s := NewStreamer(lr)
	for i := 0; i < len(text); i += n {
		chunk := text[i:min(i+n, len(text))]
		out := s.Write(chunk, cols)
		// A row committed while its line is still open came early.
		if len(out) > 0 && s.partial != "" && !strings.Contains(chunk, "\n") {
			early = true
		}
		rows = append(rows, out...)
	}
	return append(rows, s.Finish(cols)...), early
}

// However the answer is cut into chunks, the committed rows are those of
// the whole answer rendered at once: nothing repeated, lost or restyled.
func TestStreamingRendersLikeTheWhole(t *testing.T) {
	for _, cols := range []int{30, 60, 120} {
		for _, color := range []bool{true, false} {
			st := style.Style{Color: color}
			want, _ := streamAll(&mdRenderer{st: st}, answerMD, len(answerMD), cols)
			for _, n := range []int{1, 3, 7, 64} {
				got, _ := streamAll(&mdRenderer{st: st}, answerMD, n, cols)
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Fatalf("cols %d color %v chunks of %d:\n%s\n--- want\n%s", cols, color, n, strings.Join(got, "\n"), strings.Join(want, "\n"))
				}
			}
			plainWant, _ := streamAll(plainRenderer{st: st}, answerMD, len(answerMD), cols)
			plainGot, _ := streamAll(plainRenderer{st: st}, answerMD, 5, cols)
			if strings.Join(plainGot, "\n") != strings.Join(plainWant, "\n") {
				t.Fatalf("raw text at %d differs when streamed", cols)
			}
		}
	}
}

// A long paragraph's rows are committed as they fill, before the line
// ends; with an emphasis still open they wait.
func TestStreamingCommitsFullRowsEarly(t *testing.T) {
	long := strings.Repeat("word ", 40) + "end\n"
	if _, early := streamAll(&mdRenderer{st: style.Style{}}, long, 4, 30); !early {
		t.Fatal("no row was committed before the line ended")
	}
	open := "**" + strings.Repeat("bold ", 40) + "end**\n"
	rows, early := streamAll(&mdRenderer{st: style.Style{Color: true}}, open, 4, 30)
	if early || strings.Contains(strings.Join(rows, ""), "**") {
		t.Fatalf("rows committed inside an open emphasis (early %v): %q", early, rows)
	}
}

func TestMarkdownPieces(t *testing.T) {
	m := &mdRenderer{st: style.Style{}}
	if rows := m.Line("  - nested *item*", 40); len(rows) != 1 || rows[0] != "  - nested item" {
		t.Fatalf("nested item %q", rows)
	}
	if rows := m.Line("3. third", 40); rows[0] != "3. third" {
		t.Fatalf("ordered %q", rows)
	}
	if rows := m.Line("| a | b |", 40); rows != nil {
		t.Fatalf("a table row was not held: %q", rows)
	}
	m.Line("|---|---|", 40)
	m.Line("| 1 | 22 |", 40)
	if rows := m.Line("after", 40); strings.Join(rows, "|") != "a  b|-  --|1  22|after" {
		t.Fatalf("table %q", rows)
	}
	narrow := m.renderTable([]string{"| col | description |", "|---|---|", "| x | a rather long description of the thing |"}, 20)
	for _, r := range narrow {
		if style.Width(r) > 20 {
			t.Fatalf("table row %q wider than 20:\n%s", r, strings.Join(narrow, "\n"))
		}
	}
	for _, tc := range []struct {
		in string
		ok bool
	}{{"a `code` and **b**", true}, {"an `open", false}, {"**open", false}, {"[link](url", false}, {"2*3*4", true}} {
		if inlineClosed(tc.in) != tc.ok {
			t.Errorf("inlineClosed(%q) != %v", tc.in, tc.ok)
		}
	}
}

func TestHighlight(t *testing.T) {
	h := highlighter{lang: languageFor("go")}
	spans := h.line(`	if x := "a // b"; x != nil { return 42 } // done`)
	var got []string
	for _, sp := range spans {
		switch sp.a {
		case attrKeyword:
			got = append(got, "K:"+sp.text)
		case attrString:
			got = append(got, "S:"+sp.text)
		case attrNumber:
			got = append(got, "N:"+sp.text)
		case attrDim:
			got = append(got, "C:"+sp.text)
		}
	}
	if strings.Join(got, " ") != `K:if S:"a // b" K:nil K:return N:42 C:// done` {
		t.Fatalf("tokens %q", got)
	}
	h = highlighter{lang: languageFor("python")}
	h.line(`x = """starts`)
	if sp := h.line(`still in the string"""; y = 1`); sp[0].a != attrString || sp[0].text != `still in the string"""` {
		t.Fatalf("a multi-line string did not carry over: %+v", sp)
	}
	if languageFor("text") != nil || languageFor("brainfuck") != languages()["generic"] || languageFor("TSX") != languages()["js"] {
		t.Fatal("language lookup")
	}
}
