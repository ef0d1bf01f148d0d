package plural

import "testing"

func TestCount(t *testing.T) {
	for _, c := range []struct {
		n    int
		want string
	}{{0, "0 matches"}, {1, "1 match"}, {2, "2 matches"}, {-1, "-1 matches"}} {
		if got := Count(c.n, "match", "matches"); got != c.want {
			t.Errorf("Count(%d) = %q, want %q", c.n, got, c.want)
		}
	}
}

func TestOf(t *testing.T) {
	for _, c := range []struct {
		n          int
		word, want string
	}{
		{1, "entry", "1 entry"}, {4, "entry", "4 entries"}, {3, "match", "3 matches"},
		{0, "line", "0 lines"}, {2, "box", "2 boxes"}, {2, "file", "2 files"},
	} {
		if got := Of(c.n, c.word); got != c.want {
			t.Errorf("Of(%d, %q) = %q, want %q", c.n, c.word, got, c.want)
		}
	}
}
