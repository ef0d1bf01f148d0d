package textcut

import "testing"

func TestRunes(t *testing.T) {
	for _, c := range []struct {
		in   string
		n    int
		want string
		cut  bool
	}{
		{"abc", 5, "abc", false},
		{"abcdef", 3, "abc", true},
		{"中文字abc", 2, "中文", true},
		{"中文", 2, "中文", false},
		{"", 0, "", false},
	} {
		got, cut := Runes(c.in, c.n)
		if got != c.want || cut != c.cut {
			t.Errorf("Runes(%q, %d) = %q, %v; want %q, %v", c.in, c.n, got, cut, c.want, c.cut)
		}
	}
}

func TestValid(t *testing.T) {
	if got := Valid("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("Valid = %q", got)
	}
	if got := Valid("ok ü"); got != "ok ü" {
		t.Errorf("Valid changed valid text: %q", got)
	}
}
