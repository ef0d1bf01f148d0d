package lsp

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/powernap/pkg/lsp/protocol"
)

// A problem is a diagnostic as coder keeps it: severity, position and
// message, and the text of its line, which identifies it across edits.
type problem struct {
	Severity protocol.DiagnosticSeverity
	// Line and Col are 0-based; Col and EndCol count UTF-16 units, as LSP
	// does. EndCol is on Line (the end of the line when the range goes on).
	Line, Col, EndCol int
	Message           string
	Source            string
	Code              string
	// Text is the line's text.
	Text string
}

// key identifies a problem whatever its line number: the same message on
// a line of the same text is the same problem, so an edit above an old
// error (which moves it down) does not make it new.
func (p problem) key() string {
	return fmt.Sprintf("%d\x00%s\x00%s\x00%s\x00%s", p.Severity, p.Source, p.Code, p.Message, strings.TrimSpace(p.Text))
}

// problems turns a server's diagnostics on text into problems, in order of
// position.
func problems(diags []diagnostic, text string) []problem {
	lines := strings.Split(text, "\n")
	out := make([]problem, 0, len(diags))
	for _, d := range diags {
		p := problem{Severity: d.Severity, Line: int(d.Range.Start.Line), Col: int(d.Range.Start.Character),
			EndCol: int(d.Range.End.Character), Message: strings.TrimSpace(d.Message), Source: d.Source}
		if p.Severity == 0 {
			p.Severity = protocol.SeverityError // "the client decides": an error
		}
		if d.Code != nil {
			p.Code = fmt.Sprint(d.Code)
		}
		if p.Line >= 0 && p.Line < len(lines) {
			p.Text = strings.TrimRight(lines[p.Line], "\r")
		}
		if d.Range.End.Line != d.Range.Start.Line || p.EndCol < p.Col {
			p.EndCol = utf16Len(p.Text)
		}
		out = append(out, p)
	}
	slices.SortStableFunc(out, func(a, b problem) int {
		if a.Line != b.Line {
			return a.Line - b.Line
		}
		return a.Col - b.Col
	})
	return out
}

// multiset counts problems by key.
type multiset map[string]int

func setOf(ps []problem) multiset {
	m := multiset{}
	for _, p := range ps {
		m[p.key()]++
	}
	return m
}

// newSince is the problems of now that old does not hold (counting
// repeats: a second copy of an old error is new).
func newSince(now []problem, old multiset) []problem {
	left := multiset{}
	for k, n := range old {
		left[k] = n
	}
	var out []problem
	for _, p := range now {
		if k := p.key(); left[k] > 0 {
			left[k]--
			continue
		}
		out = append(out, p)
	}
	return out
}

// reported keeps the problems worth telling: errors, and warnings when
// asked for.
func reported(ps []problem, warnings bool) []problem {
	var out []problem
	for _, p := range ps {
		if p.Severity == protocol.SeverityError || warnings && p.Severity == protocol.SeverityWarning {
			out = append(out, p)
		}
	}
	return out
}
