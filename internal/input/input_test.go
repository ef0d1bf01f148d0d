package input

import "testing"

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want Line
	}{
		{"", Line{Kind: Empty}},
		{" \n\t", Line{Kind: Empty}},
		{"fix the failing test", Line{Kind: Request, Text: "fix the failing test"}},
		{"  fix it  ", Line{Kind: Request, Text: "fix it"}},
		{"see /tmp/x and !this", Line{Kind: Request, Text: "see /tmp/x and !this"}},
		{"@calc.go why?", Line{Kind: Request, Text: "@calc.go why?"}},
		{"/exit", Line{Kind: Command, Text: "/exit", Name: "exit"}},
		{"  /model   gpt-5 ", Line{Kind: Command, Text: "/model   gpt-5", Name: "model", Args: "gpt-5"}},
		{"/review fix the\nsecond line", Line{Kind: Command, Text: "/review fix the\nsecond line", Name: "review", Args: "fix the\nsecond line"}},
		{"/", Line{Kind: Command, Text: "/"}},
		{"!ls -la", Line{Kind: Shell, Text: "!ls -la", Args: "ls -la"}},
		{" !  git status ", Line{Kind: Shell, Text: "!  git status", Args: "git status"}},
		{"!", Line{Kind: Shell, Text: "!"}},
	} {
		if got := Parse(tc.in); got != tc.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func TestIs(t *testing.T) {
	for in, want := range map[string]bool{
		"/exit": true, " /exit \n": true, "/exit now": false, "/exits": false, "exit": false, "!/exit": false,
	} {
		if got := Parse(in).Is("exit"); got != want {
			t.Errorf("Parse(%q).Is(exit) = %v, want %v", in, got, want)
		}
	}
}
