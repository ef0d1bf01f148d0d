// Package style is how the REPL's text looks on a terminal: colours by
// role, and every display width it computes.
package style

import "strings"

// Style colors text by role (answer plain, reasoning dim, tools blue, done
// green, approvals yellow, errors red). With color off every method
// returns its input unchanged, and the renderer adds textual markers so
// errors and prompts stay distinguishable.
type Style struct{ Color bool }

// Reset ends every attribute an SGR sequence turned on.
const Reset = "\x1b[0m"

const (
	ansiReset   = Reset
	ansiDim     = "\x1b[2m"
	ansiRed     = "\x1b[31m"
	ansiGreen   = "\x1b[32m"
	ansiYellow  = "\x1b[33m"
	ansiBlue    = "\x1b[34m"
	ansiCyan    = "\x1b[36m"
	ansiMagenta = "\x1b[35m"
	ansiBold    = "\x1b[1m"
	ansiItalic  = "\x1b[3m"
	ansiReverse = "\x1b[7m"
)

func (s Style) wrap(code, text string) string {
	if !s.Color || text == "" {
		return text
	}
	// Color each line separately so a line never carries color into the
	// next one (scrollback copy, resize rewrap).
	if strings.Contains(text, "\n") {
		lines := strings.Split(text, "\n")
		for i, l := range lines {
			if l != "" {
				lines[i] = code + l + ansiReset
			}
		}
		return strings.Join(lines, "\n")
	}
	return code + text + ansiReset
}

func (s Style) Dim(t string) string    { return s.wrap(ansiDim, t) }
func (s Style) Red(t string) string    { return s.wrap(ansiRed, t) }
func (s Style) Green(t string) string  { return s.wrap(ansiGreen, t) }
func (s Style) Yellow(t string) string { return s.wrap(ansiYellow, t) }
func (s Style) Blue(t string) string   { return s.wrap(ansiBlue, t) }
func (s Style) Cyan(t string) string   { return s.wrap(ansiCyan, t) }
func (s Style) Bold(t string) string   { return s.wrap(ansiBold, t) }

// Reverse swaps foreground and background: the selected menu item.
func (s Style) Reverse(t string) string { return s.wrap(ansiReverse, t) }

// ColorEnabled applies ui.color ("auto", "always", "never"), NO_COLOR and
// TERM=dumb to whether the output is a terminal.
func ColorEnabled(setting string, isTTY bool, env func(string) (string, bool)) bool {
	switch setting {
	case "always":
		return true
	case "never":
		return false
	}
	if _, ok := env("NO_COLOR"); ok {
		return false
	}
	if term, _ := env("TERM"); term == "dumb" {
		return false
	}
	return isTTY
}
