package repl

import (
	"strings"
)

// A person who looked away is told when a turn ends or an answer waits,
// and only then: the terminal reports focus (mode 1004, enabled in raw);
// while it says it is not focused, the REPL rings the bell or sends a
// desktop notification (OSC 9, OSC 777), as the notifications setting
// and the terminal say. A terminal that never reports focus is taken as
// focused: nothing is sent.

// Notifier writes a notification as the terminal takes it; the zero
// value sends none.
type Notifier struct {
	kind notifyKind
	// tmux: coder runs inside tmux, which drops an OSC it does not know
	// unless it is wrapped for passthrough (tmux's allow-passthrough).
	tmux bool
}

type notifyKind int

const (
	notifyNone notifyKind = iota
	notifyBell
	notifyOSC9   // iTerm2's desktop notification, also WezTerm's, ghostty's, kitty's
	notifyOSC777 // rxvt's notify extension, also foot's and VTE's
)

// NewNotifier picks how to notify for the notifications setting (off,
// bell, osc, auto) in the terminal the environment describes: auto is a
// desktop notification in a terminal known to show one, else the bell —
// and the bell inside tmux, which shows it on the window and passes it on.
func NewNotifier(mode string, env func(string) (string, bool)) Notifier {
	get := func(k string) string { v, _ := env(k); return v }
	_, inTmux := env("TMUX")
	osc := oscKind(get)
	switch mode {
	case "off":
		return Notifier{}
	case "bell":
		return Notifier{kind: notifyBell}
	case "osc":
		if osc == notifyNone {
			osc = notifyOSC9
		}
		return Notifier{kind: osc, tmux: inTmux}
	}
	if osc == notifyNone || inTmux {
		return Notifier{kind: notifyBell}
	}
	return Notifier{kind: osc}
}

// oscKind is the desktop notification the terminal is known to show.
func oscKind(get func(string) string) notifyKind {
	term := get("TERM")
	switch {
	case get("TERM_PROGRAM") == "iTerm.app", get("TERM_PROGRAM") == "WezTerm", get("TERM_PROGRAM") == "ghostty",
		get("KITTY_WINDOW_ID") != "", strings.HasPrefix(term, "xterm-kitty"), strings.HasPrefix(term, "xterm-ghostty"):
		return notifyOSC9
	case strings.HasPrefix(term, "foot"), strings.HasPrefix(term, "rxvt-unicode"), get("VTE_VERSION") != "":
		return notifyOSC777
	}
	return notifyNone
}

// escape is the notification's bytes for the terminal; "" for none.
func (n Notifier) escape(body string) string {
	body = notifyText(body)
	var seq string
	switch n.kind {
	case notifyBell:
		return "\a"
	case notifyOSC9:
		seq = "\x1b]9;" + body + "\a"
	case notifyOSC777:
		seq = "\x1b]777;notify;coder;" + body + "\a"
	default:
		return ""
	}
	if n.tmux {
		seq = "\x1bPtmux;" + strings.ReplaceAll(seq, "\x1b", "\x1b\x1b") + "\x1b\\"
	}
	return seq
}

// notifyText keeps a notification's text to one line of printable
// characters: a tool's name comes from the model, and a control
// character would end the sequence early.
func notifyText(s string) string {
	s = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			return ' '
		}
		return r
	}, s)
	if r := []rune(s); len(r) > 120 {
		s = string(r[:119]) + "…"
	}
	return s
}

// notify tells a person away from the terminal that something waits for
// them (body says what).
func (r *REPL) notify(body string) {
	if !r.blurred {
		return
	}
	if seq := r.o.Notify.escape(body); seq != "" {
		r.scr.Send(seq)
	}
}
