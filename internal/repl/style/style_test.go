package style

import "testing"

func TestWidths(t *testing.T) {
	if got := ExpandTabs("a\tbc\td"); got != "a   bc  d" {
		t.Fatalf("expandTabs %q", got)
	}
	if got := Truncate("中文字abc", 5); got != "中文…" || Width(got) != 5 {
		t.Fatalf("truncate %q", got)
	}
}

func TestColorEnabled(t *testing.T) {
	env := func(kv ...string) func(string) (string, bool) {
		return func(k string) (string, bool) {
			for i := 0; i < len(kv); i += 2 {
				if kv[i] == k {
					return kv[i+1], true
				}
			}
			return "", false
		}
	}
	cases := []struct {
		setting string
		tty     bool
		env     func(string) (string, bool)
		want    bool
	}{
		{"auto", true, env(), true},
		{"auto", false, env(), false},
		{"auto", true, env("NO_COLOR", ""), false},
		{"auto", true, env("TERM", "dumb"), false},
		{"always", false, env("NO_COLOR", "1"), true},
		{"never", true, env(), false},
	}
	for _, c := range cases {
		if got := ColorEnabled(c.setting, c.tty, c.env); got != c.want {
			t.Errorf("%+v: got %v", c, got)
		}
	}
}
