package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"regexp/syntax"
	"slices"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/plural"
	"github.com/coder-agent/coder/internal/secrets"
	"github.com/coder-agent/coder/internal/textcut"
)

//go:embed description/grep.md
var grepDescription string

const (
	grepMaxMatches   = 200
	grepMaxContext   = 20
	grepMaxLineChars = 500
)

// grep backends; the zero value picks rg when it is on PATH.
const (
	grepAuto    = ""
	grepRg      = "rg"
	grepBuiltin = "builtin"
)

type grepTool struct {
	ws      *Workspace
	backend string
}

type grepArgs struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Include    string `json:"include"`
	Context    int    `json:"context"`
	IgnoreCase bool   `json:"ignore_case"`
	// expr and re are the checked pattern (with (?i) when ignoring case).
	expr string
	re   *regexp.Regexp
}

// grepQuery is one search, whichever backend runs it.
type grepQuery struct {
	root      string // absolute; a directory or a file
	isDir     bool
	expr      string // the pattern with (?i) when ignoring case
	include   string
	re        *regexp.Regexp
	prefilter *regexp.Regexp // whole-file check, nil when unsafe
	literal   string         // a literal every match contains, "" when none
	rules     *ignoreRules   // nil when root is a file
	ws        *Workspace     // files are opened beneath its root
}

type grepMatch struct {
	abs  string
	line int
	text string
}

func (grepTool) Name() string        { return Grep }
func (grepTool) Description() string { return grepDescription }
func (grepTool) Facts() Facts {
	return Facts{Kind: chat.ToolSearch, Effect: EffectNone, Paths: true, Plan: true, Explore: true, General: true,
		Claude: []string{"Grep"}}
}
func (grepTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Regular expression"},` +
		`"path":{"type":"string","description":"File or directory (default \".\")"},` +
		`"include":{"type":"string","description":"File name glob, e.g. *.go"},` +
		`"context":{"type":"integer","description":"Context lines around matches"},` +
		`"ignore_case":{"type":"boolean"}},` +
		`"required":["pattern"]}`)
}

// Prepare checks the pattern and the include glob; a search of a secrets
// file itself needs approval (a directory search leaves them out).
func (t grepTool) Prepare(c *Call) error {
	a, err := decodeArgs[grepArgs](c)
	if err != nil {
		return err
	}
	if strings.Contains(a.Pattern, "\n") || strings.Contains(a.Pattern, `\n`) {
		return errors.New("the pattern cannot match a line break: each line is searched on its own")
	}
	a.expr = a.Pattern
	if a.IgnoreCase {
		a.expr = "(?i)" + a.expr
	}
	if a.re, err = regexp.Compile(a.expr); err != nil {
		return fmt.Errorf("invalid regular expression %q: %v", a.Pattern, err)
	}
	if a.Include != "" && !doublestar.ValidatePattern(a.Include) {
		return fmt.Errorf("invalid include glob %q", a.Include)
	}
	c.Subject = a.Pattern
	c.Summary = fmt.Sprintf("%q", a.Pattern)
	if a.Path != "" && a.Path != "." {
		c.Summary += " in " + a.Path
	}
	if a.Include != "" {
		c.Summary += " (" + a.Include + ")"
	}
	if err := c.addPath(t.ws, orDot(a.Path), false); err != nil {
		return err
	}
	if r := secrets.PathReason(c.Paths[0].Abs); r != "" {
		c.Reasons = append(c.Reasons, r)
	}
	return nil
}

func (t grepTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*grepArgs)
	q, fail := t.query(c, a)
	if fail != nil {
		return *fail, nil
	}
	set, err := t.search(ctx, q)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return Failure("grep failed: %v", err), nil
	}
	ms := set.result()
	if len(ms) == 0 {
		return Result{OK: true, Content: fmt.Sprintf("No matches for %s in %s", a.Pattern, orDot(a.Path)), Summary: "0 matches"}, nil
	}
	out := formatMatches(t.ws, ms, min(max(a.Context, 0), grepMaxContext))
	if set.total > len(ms) {
		out += fmt.Sprintf("[showing the first %d of %d matches; narrow the pattern, path or include]\n", len(ms), set.total)
	}
	return Result{OK: true, Content: out, Summary: plural.Of(set.total, "match")}, nil
}

// search runs q with rg when it is available, with the built-in walker
// otherwise or when rg refuses to start the search.
func (t grepTool) search(ctx context.Context, q *grepQuery) (*matchSet, error) {
	rg := t.rgPath()
	if rg != "" {
		set := &matchSet{keep: grepMaxMatches}
		err := grepWithRg(ctx, rg, q, set)
		if !errors.Is(err, errRgDidNotSearch) || t.backend == grepRg {
			return set, err
		}
	}
	set := &matchSet{keep: grepMaxMatches}
	return set, grepWithWalker(ctx, q, set)
}

func (t grepTool) rgPath() string {
	switch t.backend {
	case grepBuiltin:
		return ""
	case grepRg:
		return "rg"
	}
	p, _ := exec.LookPath("rg")
	return p
}

// query builds the search from the prepared arguments.
func (t grepTool) query(c *Call, a *grepArgs) (*grepQuery, *Result) {
	tg, res := c.target(t.ws, 0)
	if res != nil {
		return nil, res
	}
	fi, err := t.ws.stat(tg)
	if err != nil {
		r := fileFailure(tg.Rel, err)
		return nil, &r
	}
	q := &grepQuery{root: tg.Abs, isDir: fi.IsDir(), expr: a.expr, include: a.Include, re: a.re,
		prefilter: prefilterFor(a.expr), literal: requiredLiteral(a.expr), ws: t.ws}
	if q.isDir {
		q.rules = newIgnoreRules(tg.Abs, t.ws.Root)
	}
	return q, nil
}

// prefilterFor is expr in multi-line mode, which matches a whole file
// whenever expr matches one of its lines — unless expr anchors to the start
// or end of the text (\A, \z), which only a line-by-line search gets right.
func prefilterFor(expr string) *regexp.Regexp {
	re, err := syntax.Parse("(?m)"+expr, syntax.Perl)
	if err != nil || anchorsText(re) {
		return nil
	}
	pre, err := regexp.Compile("(?m)" + expr)
	if err != nil {
		return nil
	}
	return pre
}

func anchorsText(re *syntax.Regexp) bool {
	if re.Op == syntax.OpBeginText || re.Op == syntax.OpEndText {
		return true
	}
	return slices.ContainsFunc(re.Sub, anchorsText)
}

// accepts reports whether a file found below root passes the include filter.
func (q *grepQuery) accepts(abs string) bool {
	// A directory search leaves secrets files out (.env and the like):
	// asking for one by name goes through approval instead.
	if q.isDir && secrets.IsPath(abs) {
		return false
	}
	if q.include == "" {
		return true
	}
	name := filepath.Base(abs)
	if strings.Contains(q.include, "/") && q.isDir {
		rel, _ := filepath.Rel(q.root, abs)
		name = filepath.ToSlash(rel)
	}
	ok, _ := doublestar.Match(q.include, name)
	return ok
}

// matchSet keeps the first keep matches in path and line order, and counts
// them all. Backends add from many goroutines.
type matchSet struct {
	mu    sync.Mutex
	keep  int
	total int
	ms    []grepMatch
}

func (s *matchSet) addFile(ms []grepMatch) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.total += len(ms)
	s.ms = append(s.ms, ms...)
	if len(s.ms) > 4*s.keep {
		s.prune()
	}
}

func (s *matchSet) prune() {
	slices.SortFunc(s.ms, func(x, y grepMatch) int {
		if c := strings.Compare(x.abs, y.abs); c != 0 {
			return c
		}
		return x.line - y.line
	})
	s.ms = s.ms[:min(len(s.ms), s.keep)]
}

func (s *matchSet) result() []grepMatch {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.prune()
	return s.ms
}

// matchText is a line as grep shows it: no line ending, valid UTF-8, cut.
func matchText(line []byte) string {
	s := strings.TrimSuffix(strings.TrimSuffix(string(line), "\n"), "\r")
	s, cut := textcut.Runes(textcut.Valid(s), grepMaxLineChars)
	if cut {
		s += " [line cut]"
	}
	return s
}
