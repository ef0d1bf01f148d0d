package markdown

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Syntax colour for fenced code: keywords, strings, comments and numbers of
// the common languages, line by line (a block comment or a multi-line
// string carries over). It is deliberately small: chroma, the usual Go
// highlighter, adds 4.7 MB and 20 ms of start-up (its lexer and style
// registries initialise at program start), more than a whole one-turn run.

type language struct {
	keywords      map[string]bool
	caseless      bool     // SQL
	lineComments  []string // "//", "#", "--"
	blockComments bool     // /* … */
	quotes        string   // characters that open a string
	multiline     []string // string delimiters that may span lines
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

// languages are built on first use: most runs highlight no code, and
// package initialisation is paid by every start.
var languages = sync.OnceValue(func() map[string]*language {
	cFamily := &language{keywords: words(`auto break case catch char class const constexpr continue default delete do double else enum explicit extern
		false final float for friend goto if import inline int long namespace new noexcept null nullptr operator override package private
		protected public return short signed sizeof static struct super switch template this throw throws true try typedef typename union
		unsigned using var virtual void volatile while boolean byte extends implements instanceof interface abstract synchronized
		fun val when object data sealed companion let func guard self Self nil init deinit protocol extension`),
		lineComments: []string{"//"}, blockComments: true, quotes: `"'`}
	return map[string]*language{
		"go": {keywords: words(`break case chan const continue default defer else fallthrough for func go goto if import interface
			map package range return select struct switch type var true false nil iota`),
			lineComments: []string{"//"}, blockComments: true, quotes: "\"'`", multiline: []string{"`"}},
		"python": {keywords: words(`and as assert async await break class continue def del elif else except False finally for from
			global if import in is lambda None nonlocal not or pass raise return True try while with yield self match case`),
			lineComments: []string{"#"}, quotes: `"'`, multiline: []string{`"""`, `'''`}},
		"js": {keywords: words(`async await break case catch class const continue debugger default delete do else enum export extends
			false finally for from function if implements import in instanceof interface let new null of private protected public readonly
			return static super switch this throw true try type typeof undefined var void while with yield`),
			lineComments: []string{"//"}, blockComments: true, quotes: "\"'`", multiline: []string{"`"}},
		"rust": {keywords: words(`as async await break const continue crate dyn else enum extern false fn for if impl in let loop match
			mod move mut pub ref return self Self static struct super trait true type unsafe use where while`),
			lineComments: []string{"//"}, blockComments: true, quotes: `"`},
		"sh": {keywords: words(`if then else elif fi case esac for while until do done in function return local export readonly
			declare set unset shift exit source echo cd`),
			lineComments: []string{"#"}, quotes: `"'`},
		"sql": {keywords: words(`select from where and or not insert into values update set delete create table index drop alter
			join left right inner outer on group by order having limit offset as distinct null is in like primary key foreign references
			begin commit rollback union all case when then else end exists default`),
			caseless: true, lineComments: []string{"--"}, blockComments: true, quotes: `'"`},
		"json":    {keywords: words(`true false null`), quotes: `"`},
		"yaml":    {keywords: words(`true false null yes no on off`), lineComments: []string{"#"}, quotes: `"'`},
		"toml":    {keywords: words(`true false`), lineComments: []string{"#"}, quotes: `"'`},
		"c":       cFamily,
		"generic": {lineComments: []string{"//", "#"}, blockComments: true, quotes: `"'`},
	}
})

var languageAliases = map[string]string{
	"golang": "go", "py": "python", "python3": "python", "javascript": "js", "jsx": "js", "ts": "js", "tsx": "js",
	"typescript": "js", "mjs": "js", "cjs": "js", "rs": "rust", "bash": "sh", "shell": "sh", "zsh": "sh", "console": "sh",
	"shellscript": "sh", "postgres": "sql", "postgresql": "sql", "mysql": "sql", "sqlite": "sql", "yml": "yaml",
	"cpp": "c", "c++": "c", "h": "c", "hpp": "c", "cc": "c", "java": "c", "kotlin": "c", "kt": "c", "swift": "c",
	"cs": "c", "csharp": "c", "objc": "c", "scala": "c", "dart": "c", "php": "c", "jsonc": "json", "json5": "json",
}

// languageFor is the language of a fence's info string; nil for none (plain
// text), generic for an unknown name.
func languageFor(info string) *language {
	name := strings.ToLower(strings.TrimSpace(info))
	if i := strings.IndexAny(name, " {,"); i >= 0 {
		name = name[:i]
	}
	switch name {
	case "", "text", "txt", "plain", "plaintext", "output", "log", "diff", "patch", "markdown", "md":
		return nil
	}
	if a, ok := languageAliases[name]; ok {
		name = a
	}
	if l, ok := languages()[name]; ok {
		return l
	}
	return languages()["generic"]
}

// highlighter colours one fenced block line by line.
type highlighter struct {
	lang *language
	// open is the delimiter of a string or "*/" of a comment that a
	// previous line left open.
	open string
}

func (h *highlighter) line(s string) []span {
	if h.lang == nil {
		return []span{{text: s}}
	}
	var out []span
	add := func(text string, a attr) {
		if text != "" {
			out = append(out, span{text: text, a: a})
		}
	}
	i := 0
	if h.open != "" {
		end := strings.Index(s, h.open)
		a := attrString
		if h.open == "*/" {
			a = attrDim
		}
		if end < 0 {
			add(s, a)
			return out
		}
		add(s[:end+len(h.open)], a)
		i, h.open = end+len(h.open), ""
	}
	plain := i
	for i < len(s) {
		rest := s[i:]
		n, a := h.token(rest)
		switch {
		case n > 0:
			add(s[plain:i], 0)
			add(rest[:n], a)
			i += n
			plain = i
		case n < 0: // a plain identifier, skipped whole
			i -= n
		default:
			_, size := utf8.DecodeRuneInString(rest)
			i += size
		}
	}
	add(s[plain:], 0)
	return out
}

// token measures the token at the start of s that gets a colour: a comment,
// a string, a keyword or a number; a negative length is an identifier that
// gets none, 0 that nothing starts there.
func (h *highlighter) token(s string) (int, attr) {
	l := h.lang
	for _, c := range l.lineComments {
		if strings.HasPrefix(s, c) {
			return len(s), attrDim
		}
	}
	if l.blockComments && strings.HasPrefix(s, "/*") {
		if end := strings.Index(s[2:], "*/"); end >= 0 {
			return end + 4, attrDim
		}
		h.open = "*/"
		return len(s), attrDim
	}
	for _, d := range l.multiline {
		if strings.HasPrefix(s, d) {
			if end := strings.Index(s[len(d):], d); end >= 0 {
				return end + 2*len(d), attrString
			}
			h.open = d
			return len(s), attrString
		}
	}
	if strings.IndexByte(l.quotes, s[0]) >= 0 {
		return quoted(s), attrString
	}
	r, _ := utf8.DecodeRuneInString(s)
	switch {
	case r == '_' || unicode.IsLetter(r):
		n := identLen(s)
		w := s[:n]
		if l.caseless {
			w = strings.ToLower(w)
		}
		if l.keywords[w] {
			return n, attrKeyword
		}
		return -n, 0 // an identifier: skip it whole, so "x1" has no number
	case r >= '0' && r <= '9':
		n := 1
		for n < len(s) && (isIdentByte(s[n]) || s[n] == '.') {
			n++
		}
		return n, attrNumber
	}
	return 0, 0
}

// quoted measures a string literal opened by s[0], with backslash escapes;
// an unclosed one ends with the line.
func quoted(s string) int {
	q := s[0]
	for i := 1; i < len(s); i++ {
		switch s[i] {
		case '\\':
			i++
		case q:
			return i + 1
		}
	}
	return len(s)
}

func identLen(s string) int {
	n := 0
	for n < len(s) {
		r, size := utf8.DecodeRuneInString(s[n:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		n += size
	}
	return n
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}
