package termsafe

import (
	"strings"
	"testing"
)

func TestVisible(t *testing.T) {
	t.Parallel()
	tests := []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"newline and tab kept", "a\tb\nc", "a\tb\nc"},
		{"crlf keeps the line", "one\r\ntwo\r\n", "one\ntwo\n"},
		{"CSI erase line", "\x1b[2K\rApprove? fake", `\x1b[2K\x0dApprove? fake`},
		{"CSI colour", "ok\x1b[31mred\x1b[0m", `ok\x1b[31mred\x1b[0m`},
		{"OSC title with BEL", "\x1b]0;title\x07after", `\x1b]0;title\x07after`},
		{"OSC 8 hyperlink with ST", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\", `\x1b]8;;http://x\x1b\link\x1b]8;;\x1b\`},
		{"C1 CSI", "a\u009b2Kb", `a\u009b2Kb`},
		{"C1 OSC", "\u009d0;t\u009c", `\u009d0;t\u009c`},
		{"lone ESC", "tail\x1b", `tail\x1b`},
		{"lone CR overwrites", "rm -rf ~\rls", `rm -rf ~\x0dls`},
		{"CR at the end", "safe\r", `safe\x0d`},
		{"CR CR LF", "a\r\r\nb", "a\\x0d\nb"},
		{"DEL", "a\x7fb", `a\x7fb`},
		{"backspace", "abc\b\b\bxyz", `abc\x08\x08\x08xyz`},
		{"NUL", "a\x00b", `a\x00b`},
		{"invalid UTF-8", "a\xffb", "a\uFFFDb"},
		{"valid Unicode untouched", "héllo 世界 🙂 ü\u00a0x", "héllo 世界 🙂 ü\u00a0x"},
		{"Unicode then control", "世界\x1b[H", `世界\x1b[H`},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := Visible(tt.in)
			if got != tt.want {
				t.Fatalf("Visible(%q) = %q, want %q", tt.in, got, tt.want)
			}
			if strings.ContainsFunc(got, func(r rune) bool { return control(r) }) {
				t.Fatalf("Visible(%q) = %q still holds a control character", tt.in, got)
			}
			if again := Visible(got); again != got {
				t.Fatalf("not idempotent: %q then %q", got, again)
			}
		})
	}
}

func FuzzVisible(f *testing.F) {
	f.Add("\x1b[2K\r\u009b\x7f\xff")
	f.Fuzz(func(t *testing.T, s string) {
		got := Visible(s)
		if strings.ContainsFunc(got, func(r rune) bool { return control(r) }) {
			t.Fatalf("Visible(%q) = %q holds a control character", s, got)
		}
	})
}
