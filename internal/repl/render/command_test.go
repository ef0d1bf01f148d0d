package render

import "testing"

func TestCommandExit(t *testing.T) {
	for in, want := range map[string]int{
		"$ false\nexit=1 duration=2ms\n(no output)": 1,
		"$ ls\nexit=0 duration=3ms":                 0,
		"$ x\nexit=-1 duration=3ms (truncated)":     -1,
		"no exit line":                              0,
	} {
		if got := commandExit(in); got != want {
			t.Errorf("%q: %d, want %d", in, got, want)
		}
	}
}
