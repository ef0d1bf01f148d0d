package shell

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// word evaluates a shell word statically: quotes removed, escapes resolved,
// ~ and $HOME expanded for path checks. Any other expansion makes the word
// unknown, because its value only exists at run time.
func (a *analyzer) word(w *syntax.Word) word {
	if len(w.Parts) == 1 {
		// <(cmd) is always a /dev/fd path; cmd itself is checked on its own.
		if _, ok := w.Parts[0].(*syntax.ProcSubst); ok {
			return word{text: printNode(w), path: "/dev/fd/63", known: true}
		}
	}
	var text, path strings.Builder
	known := true
	for i, part := range w.Parts {
		if !a.wordPart(part, i == 0, false, &text, &path) {
			known = false
		}
	}
	if !known {
		return unknownWord(printNode(w))
	}
	return word{text: text.String(), path: path.String(), known: true}
}

// wordPart appends one part's value; it reports false when the part's
// value is only known at run time.
func (a *analyzer) wordPart(p syntax.WordPart, first, quoted bool, text, path *strings.Builder) bool {
	switch p := p.(type) {
	case *syntax.Lit:
		v := unescape(p.Value, quoted)
		text.WriteString(v)
		path.WriteString(a.tilde(v, first && !quoted))
		return true
	case *syntax.SglQuoted:
		if p.Dollar { // $'…' escapes: not decoded, so unknown
			return false
		}
		text.WriteString(p.Value)
		path.WriteString(p.Value)
		return true
	case *syntax.DblQuoted:
		if p.Dollar {
			return false
		}
		ok := true
		for _, q := range p.Parts {
			if !a.wordPart(q, false, true, text, path) {
				ok = false
			}
		}
		return ok
	case *syntax.ParamExp:
		// $HOME is the one variable whose value is fixed for the session and
		// central to "rm -rf $HOME"; everything else is unknown.
		if isHomeParam(p) && a.home != "" {
			text.WriteString("$HOME")
			path.WriteString(a.home)
			return true
		}
	}
	return false
}

func isHomeParam(p *syntax.ParamExp) bool {
	return p.Param != nil && p.Param.Value == "HOME" && p.Index == nil &&
		p.Exp == nil && p.Repl == nil && p.Slice == nil && !p.Excl && !p.Length &&
		p.Names == 0 && p.Flags == nil && p.NestedParam == nil && len(p.Modifiers) == 0
}

// tilde expands a leading "~" or "~/" (not "~user") for path checks.
func (a *analyzer) tilde(v string, expand bool) string {
	if !expand || a.home == "" || !strings.HasPrefix(v, "~") {
		return v
	}
	if v == "~" || strings.HasPrefix(v, "~/") {
		return a.home + v[1:]
	}
	return v
}

// unescape removes backslash escapes the shell would remove: any character
// outside quotes; only $ ` " \ and newline inside double quotes. A
// backslash-newline is a line continuation and disappears.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' || i+1 >= len(s) {
			b.WriteByte(s[i])
			continue
		}
		next := s[i+1]
		switch {
		case next == '\n':
			i++
		case !quoted || strings.IndexByte("$`\"\\", next) >= 0:
			b.WriteByte(next)
			i++
		default:
			b.WriteByte(s[i])
		}
	}
	return b.String()
}
