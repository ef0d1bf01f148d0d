package dirwatch

import "testing"

func TestWatchFrom(t *testing.T) {
	defer WatchFrom(1)
	for _, c := range []struct {
		from int
		want []bool // scans 1 to 4
	}{
		{1, []bool{true, true, true, true}},
		{3, []bool{false, false, true, true}},
		{0, []bool{false, false, false, false}},
		{-1, []bool{false, false, false, false}},
	} {
		WatchFrom(c.from)
		for i, want := range c.want {
			if got := Watching(i + 1); got != want {
				t.Errorf("WatchFrom(%d): scan %d watching %v, want %v", c.from, i+1, got, want)
			}
		}
	}
}
