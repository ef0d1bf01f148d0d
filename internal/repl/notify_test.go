package repl

import "testing"

func TestNotifierFollowsTheSettingAndTheTerminal(t *testing.T) {
	const osc9, osc777 = "\x1b]9;done\a", "\x1b]777;notify;coder;done\a"
	cases := []struct {
		name, mode string
		env        map[string]string
		want       string
	}{
		{"off sends nothing", "off", map[string]string{"TERM_PROGRAM": "iTerm.app"}, ""},
		{"bell", "bell", map[string]string{"TERM_PROGRAM": "iTerm.app"}, "\a"},
		{"auto in iTerm2", "auto", map[string]string{"TERM_PROGRAM": "iTerm.app"}, osc9},
		{"auto in kitty", "auto", map[string]string{"TERM": "xterm-kitty", "KITTY_WINDOW_ID": "1"}, osc9},
		{"auto in foot", "auto", map[string]string{"TERM": "foot"}, osc777},
		{"auto in a VTE terminal", "auto", map[string]string{"TERM": "xterm-256color", "VTE_VERSION": "7600"}, osc777},
		{"auto in an unknown terminal rings", "auto", map[string]string{"TERM": "xterm-256color"}, "\a"},
		{"auto inside tmux rings", "auto", map[string]string{"TERM_PROGRAM": "WezTerm", "TMUX": "/tmp/tmux-0/default,1,0"}, "\a"},
		{"the default is auto", "", map[string]string{"TERM_PROGRAM": "ghostty"}, osc9},
		{"osc in an unknown terminal is OSC 9", "osc", map[string]string{"TERM": "xterm-256color"}, osc9},
		{"osc in foot is OSC 777", "osc", map[string]string{"TERM": "foot-extra"}, osc777},
		{"osc inside tmux passes through", "osc", map[string]string{"TMUX": "x"}, "\x1bPtmux;\x1b\x1b]9;done\a\x1b\\"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n := NewNotifier(tc.mode, func(k string) (string, bool) { v, ok := tc.env[k]; return v, ok })
			if got := n.escape("done"); got != tc.want {
				t.Fatalf("escape = %q, want %q", got, tc.want)
			}
		})
	}
}

// A notification's text is one line of printable characters: a tool name
// from the model cannot end the sequence and write to the terminal.
func TestNotifyTextCannotEscape(t *testing.T) {
	n := Notifier{kind: notifyOSC9}
	got := n.escape("approval needed: x\a\x1b]0;pwned\x1b\\\nrm")
	if want := "\x1b]9;approval needed: x  ]0;pwned \\ rm\a"; got != want {
		t.Fatalf("escape = %q, want %q", got, want)
	}
}
