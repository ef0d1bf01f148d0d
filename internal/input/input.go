// Package input says what a line a person typed is: a / command, a !
// command for the shell, or a request for the model. Every front end (the
// REPL, line mode, headless, ACP) and the core classify a line here, so
// they cannot disagree about one.
package input

import "strings"

// Kind is what a typed line asks for.
type Kind int

const (
	// Empty is a line of nothing but white space: it does nothing.
	Empty Kind = iota
	// Request is text for the model (a turn).
	Request
	// Command is "/name args": a built-in or custom command, which the
	// dispatcher runs (or the front end, for its own: /exit, /clear, …).
	Command
	// Shell is "!cmd": a command run through the tool chain, without the
	// model.
	Shell
)

// Line is a typed line, classified.
type Line struct {
	Kind Kind
	// Text is the line without its surrounding white space.
	Text string
	// Name is a command's name, without the slash: what comes before the
	// first space ("" for a lone "/").
	Name string
	// Args are a command's arguments, or a shell line's command, trimmed.
	Args string
}

// Parse classifies s.
func Parse(s string) Line {
	l := Line{Text: strings.TrimSpace(s)}
	switch {
	case l.Text == "":
		l.Kind = Empty
	case l.Text[0] == '/':
		l.Kind = Command
		name, args, _ := strings.Cut(l.Text[1:], " ")
		l.Name, l.Args = name, strings.TrimSpace(args)
	case l.Text[0] == '!':
		l.Kind, l.Args = Shell, strings.TrimSpace(l.Text[1:])
	default:
		l.Kind = Request
	}
	return l
}

// Is reports whether the line is the command /name without arguments.
func (l Line) Is(name string) bool {
	return l.Kind == Command && l.Name == name && l.Args == ""
}
