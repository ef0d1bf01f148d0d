package lsp

import (
	"fmt"
	"strings"
	"unicode/utf16"

	"github.com/clipperhouse/displaywidth"
	"github.com/coder-agent/coder/internal/plural"
)

// Limits on what one tool result carries.
const (
	maxPerFile  = 10
	maxMessage  = 400
	maxLineText = 160
)

// formatChecks writes the files' outcomes for the model: each new problem
// with its position, message and a short code frame.
func formatChecks(checks []fileCheck) string {
	var b strings.Builder
	for _, fc := range checks {
		if fc.note != "" {
			fmt.Fprintf(&b, "Language server: %s.\n", fc.note)
		}
		if len(fc.probs) == 0 {
			continue
		}
		what := "new"
		if fc.fresh {
			what = "current" // its state before the edit is not known
		}
		fmt.Fprintf(&b, "Language server (%s) reports %s in %s:\n", fc.server, count(fc.probs, what), fc.rel)
		for i, p := range fc.probs {
			if i == maxPerFile {
				fmt.Fprintf(&b, "… and %d more\n", len(fc.probs)-maxPerFile)
				break
			}
			writeProblem(&b, fc.rel, p)
		}
	}
	return strings.TrimRight(b.String(), "\n")
}

// summarize is the outcomes in one line for people (the tool call's
// summary): "gopls: 1 new error in a.go".
func summarize(checks []fileCheck) string {
	var parts []string
	for _, fc := range checks {
		switch {
		case len(fc.probs) > 0:
			what := "new"
			if fc.fresh {
				what = "current"
			}
			parts = append(parts, fmt.Sprintf("%s: %s in %s", fc.server, count(fc.probs, what), fc.rel))
		case fc.note != "":
			parts = append(parts, fc.server+": "+fc.rel+" not checked")
		}
	}
	return strings.Join(parts, "; ")
}

// count says "1 new error", "2 new errors and 1 new warning" (what is
// "new", or "" for just the numbers).
func count(ps []problem, what string) string {
	n := map[string]int{}
	for _, p := range ps {
		n[severityWord(p)]++
	}
	var parts []string
	for _, w := range []string{"error", "warning", "info", "hint"} {
		if n[w] > 0 {
			word := strings.TrimSpace(what + " " + w)
			parts = append(parts, plural.Count(n[w], word, word+"s"))
		}
	}
	return strings.Join(parts, " and ")
}

// writeProblem writes "a.go:7:13: error: message [code]" and the code
// frame: the line with its number and a caret under the range.
func writeProblem(b *strings.Builder, rel string, p problem) {
	sev := severityWord(p)
	msg := clip(strings.ReplaceAll(p.Message, "\n", " "), maxMessage)
	code := ""
	if p.Code != "" {
		code = " [" + p.Code + "]"
	}
	col := column(p.Text, p.Col)
	fmt.Fprintf(b, "%s:%d:%d: %s: %s%s\n", rel, p.Line+1, col, sev, msg, code)
	if strings.TrimSpace(p.Text) == "" {
		return
	}
	num := fmt.Sprint(p.Line + 1)
	text := clip(p.Text, maxLineText)
	fmt.Fprintf(b, "  %s | %s\n", num, text)
	start, end := col-1, column(p.Text, p.EndCol)-1
	runes := []rune(text)
	if start >= len(runes) {
		return
	}
	end = min(max(end, start+1), len(runes))
	// The caret line keeps the source's tabs and counts wide characters
	// twice, so it lines up however the line is shown.
	var pad strings.Builder
	for _, r := range runes[:start] {
		if r == '\t' {
			pad.WriteRune('\t')
		} else {
			pad.WriteString(strings.Repeat(" ", displaywidth.Rune(r)))
		}
	}
	carets := 0
	for _, r := range runes[start:end] {
		carets += max(displaywidth.Rune(r), 1)
	}
	fmt.Fprintf(b, "  %s | %s%s\n", strings.Repeat(" ", len(num)), pad.String(), strings.Repeat("^", carets))
}

// column turns a UTF-16 offset into a line into a 1-based column in
// characters.
func column(line string, utf16Col int) int {
	n := 0
	for i, r := range line {
		if n >= utf16Col {
			return len([]rune(line[:i])) + 1
		}
		n += len(utf16.Encode([]rune{r}))
	}
	return len([]rune(line)) + 1
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		n += len(utf16.Encode([]rune{r}))
	}
	return n
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}
