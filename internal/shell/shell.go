// Package shell reads a shell command line without running it: a real
// shell parser (mvdan.cc/sh) finds every simple command the line would run,
// nested ones included, what it writes, and why a person should look at it
// first. The tools parse a bash call once; the policy and the approval
// prompt read the result.
package shell

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Analysis is what Analyze learned about a command line.
type Analysis struct {
	// Source is the command line as given.
	Source string
	// Reasons are the tool-level approval reasons (danger), in order of
	// appearance, without duplicates.
	Reasons []string
	// Commands is every simple command the shell would run, nested ones
	// (substitutions, bash -c strings, xargs/find -exec) included.
	Commands []Command
	// ReadOnly: every command is on the read-only whitelist and no
	// redirection writes a file.
	ReadOnly bool
	// Writes: some redirection or command writes a file.
	Writes bool
	// ParseError is the parser's message when the command could not be parsed.
	ParseError string
}

// Argvs is the argv of every command; words computed at run time are shown
// as written ("$VAR").
func (a *Analysis) Argvs() [][]string {
	var out [][]string
	for _, c := range a.Commands {
		out = append(out, c.Argv())
	}
	return out
}

// Judged is what a policy judges: every simple command, or, when the line
// does not parse, one command whose name is unknown (so only catch-all
// rules match it). A line that runs nothing ("", "x=1", a comment) is one
// empty command.
func (a *Analysis) Judged() []Command {
	if a.ParseError == "" && len(a.Commands) > 0 {
		return a.Commands
	}
	c := Command{words: []word{unknownWord(a.Source)}, writes: a.Writes}
	if a.ParseError == "" && !a.Writes {
		c.words = nil
	}
	return []Command{c}
}

// Options tunes Analyze.
type Options struct {
	// Cwd is the directory the command runs in; empty means Workspace.
	Cwd string
	// Workspace is the root writes must stay inside.
	Workspace string
	// Writable are extra directories (e.g. the temp dir) where writes are
	// not reported as "outside the workspace".
	Writable []string
}

// Reason texts that callers and tests match on.
const (
	reasonParse       = "could not parse the command; it needs approval"
	reasonComputedCmd = "command name is computed at run time"
	maxShellDepth     = 8
)

// Analyze parses command with a real shell parser and reports what it
// would run and why a person should look at it first.
func Analyze(command string, o Options) *Analysis {
	a := newAnalyzer(o)
	a.source(command, ctx{}, 0)
	an := a.result()
	an.Source = command
	return &an
}

// Command is one simple command the shell would run, as the policy judges it.
type Command struct {
	words []word
	// writes: a redirection of this command (or of a compound command
	// around it) writes a real file.
	writes bool
	// function: the name is a function the command line declares, so the
	// whitelist (which knows commands, not functions) does not apply.
	function bool
}

// Argv is the command's words; those computed at run time as written.
func (c Command) Argv() []string {
	out := make([]string, len(c.words))
	for i, w := range c.words {
		out[i] = w.text
	}
	return out
}

// word is a shell word after quote removal, as far as it can be known
// without running anything.
type word struct {
	text  string // value after quote removal; the source text when unknown
	path  string // value for path checks: ~ and $HOME expanded
	known bool
}

func unknownWord(text string) word { return word{text: text} }
func knownWord(s string) word      { return word{text: s, path: s, known: true} }

// analyzer walks parsed commands, collecting simple commands and reasons.
type analyzer struct {
	cwd, workspace string
	cwdKnown       bool
	home           string
	writable       []string
	reasons        []string
	cmds           []Command
	writes         bool // some redirection or command writes a file
	parseErr       string
	funcs          map[string]bool // functions the command line declares
	skipHidden     bool            // the command being checked skips hidden files
	seen           map[*syntax.CallExpr]bool
	info           map[*syntax.CallExpr]*callInfo
}

// callInfo is what the pipeline check needs to know about a CallExpr.
type callInfo struct {
	stdinInterp bool // an interpreter reading its program from stdin
}

// ctx is the context a command is walked in.
type ctx struct {
	writes bool // an enclosing redirection writes a file
}

func newAnalyzer(o Options) *analyzer {
	home, _ := os.UserHomeDir()
	ws := realPath(absOr(o.Workspace, "."))
	cwd := ws
	if o.Cwd != "" {
		cwd = realPath(absOr(o.Cwd, ws))
	}
	a := &analyzer{cwd: cwd, cwdKnown: true, workspace: ws, home: home,
		funcs: map[string]bool{}, seen: map[*syntax.CallExpr]bool{}, info: map[*syntax.CallExpr]*callInfo{}}
	for _, d := range o.Writable {
		a.writable = append(a.writable, realPath(absOr(d, ws)))
	}
	return a
}

func (a *analyzer) result() Analysis {
	an := Analysis{Reasons: a.reasons, ParseError: a.parseErr, Commands: a.cmds, Writes: a.writes}
	ro := a.parseErr == "" && !a.writes
	for _, c := range a.cmds {
		ro = ro && c.ReadOnly()
	}
	an.ReadOnly = ro
	return an
}

func (a *analyzer) reason(r string) {
	for _, have := range a.reasons {
		if have == r {
			return
		}
	}
	a.reasons = append(a.reasons, r)
}

func parseShell(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
}

// source parses and walks one command string; depth counts bash -c
// nesting and c carries the redirections of the command that runs it.
func (a *analyzer) source(src string, c ctx, depth int) {
	if depth > maxShellDepth {
		a.reason("shell command strings are nested too deeply to check")
		a.record([]word{unknownWord(src)}, c) // unknown: matches no command rule
		return
	}
	f, err := parseShell(src)
	if err != nil {
		if a.parseErr == "" {
			a.parseErr = err.Error()
		}
		a.reason(reasonParse)
		return
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		if fd, ok := n.(*syntax.FuncDecl); ok && fd.Name != nil {
			a.funcs[fd.Name.Value] = true
		}
		return true
	})
	a.stmts(f.Stmts, c, depth)
	// Safety net: any simple command the structured walk did not reach
	// (a node kind it does not know) is still checked.
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok && !a.seen[ce] {
			a.call(ce, ctx{}, depth)
		}
		return true
	})
}

func (a *analyzer) stmts(list []*syntax.Stmt, c ctx, depth int) {
	for _, s := range list {
		a.stmt(s, c, depth)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt, c ctx, depth int) {
	if s == nil {
		return
	}
	if a.redirects(s.Redirs, depth) {
		c.writes = true
	}
	if s.Cmd != nil {
		a.command(s.Cmd, c, depth)
	}
}

// command walks every kind of compound command down to simple commands.
func (a *analyzer) command(cmd syntax.Command, c ctx, depth int) {
	switch n := cmd.(type) {
	case *syntax.CallExpr:
		a.call(n, c, depth)
	case *syntax.BinaryCmd:
		a.stmt(n.X, c, depth)
		a.stmt(n.Y, c, depth)
		if n.Op == syntax.Pipe || n.Op == syntax.PipeAll {
			a.checkPipe(n)
		}
	case *syntax.Subshell:
		a.stmts(n.Stmts, c, depth)
	case *syntax.Block:
		a.stmts(n.Stmts, c, depth)
	case *syntax.IfClause:
		a.stmts(n.Cond, c, depth)
		a.stmts(n.Then, c, depth)
		if n.Else != nil {
			a.command(n.Else, c, depth)
		}
	case *syntax.WhileClause:
		a.stmts(n.Cond, c, depth)
		a.stmts(n.Do, c, depth)
	case *syntax.ForClause:
		a.nested(n.Loop, depth)
		a.stmts(n.Do, c, depth)
	case *syntax.CaseClause:
		a.nested(n.Word, depth)
		for _, it := range n.Items {
			for _, p := range it.Patterns {
				a.nested(p, depth)
			}
			a.stmts(it.Stmts, c, depth)
		}
	case *syntax.FuncDecl:
		a.checkForkBomb(n)
		a.stmt(n.Body, c, depth)
	case *syntax.TimeClause:
		a.stmt(n.Stmt, c, depth)
	case *syntax.CoprocClause:
		a.stmt(n.Stmt, c, depth)
	case *syntax.TestDecl:
		a.stmt(n.Body, c, depth)
	case *syntax.DeclClause:
		a.decl(n, c, depth)
	default: // ArithmCmd, TestClause, LetClause: only substitutions run
		a.nested(cmd, depth)
	}
}

// nested analyses the command and process substitutions inside a node
// that is not itself a statement list.
func (a *analyzer) nested(n syntax.Node, depth int) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch s := n.(type) {
		case *syntax.CmdSubst:
			a.stmts(s.Stmts, ctx{}, depth)
			return false
		case *syntax.ProcSubst:
			a.stmts(s.Stmts, ctx{}, depth)
			return false
		}
		return true
	})
}

func (a *analyzer) decl(d *syntax.DeclClause, c ctx, depth int) {
	ws := []word{knownWord(d.Variant.Value)}
	for _, as := range d.Args {
		a.nested(as, depth)
		ws = append(ws, a.assignWord(as))
	}
	a.record(ws, c)
}

func (a *analyzer) assignWord(as *syntax.Assign) word {
	switch {
	case as.Naked && as.Value != nil:
		return a.word(as.Value)
	case as.Name == nil || as.Array != nil || as.Index != nil:
		return unknownWord(printNode(as))
	case as.Value == nil:
		return knownWord(as.Name.Value + "=")
	}
	v := a.word(as.Value)
	if !v.known {
		return unknownWord(printNode(as))
	}
	return knownWord(as.Name.Value + "=" + v.text)
}

// call handles a simple command: substitutions in its words, then the
// command itself (wrappers unwrapped, danger checks).
func (a *analyzer) call(ce *syntax.CallExpr, c ctx, depth int) {
	if a.seen[ce] {
		return
	}
	a.seen[ce] = true
	for _, as := range ce.Assigns {
		a.nested(as, depth)
	}
	words := make([]word, 0, len(ce.Args))
	for _, w := range ce.Args {
		a.nested(w, depth)
		words = append(words, a.word(w))
	}
	info := &callInfo{}
	a.info[ce] = info
	a.checkSubstInterp(ce)
	a.exec(words, c, depth, info)
}

func (a *analyzer) record(words []word, c ctx) {
	fn := len(words) > 0 && words[0].known && a.funcs[words[0].text]
	a.cmds = append(a.cmds, Command{words: words, writes: c.writes, function: fn})
}

func printNode(n syntax.Node) string {
	var b bytes.Buffer
	if err := syntax.NewPrinter().Print(&b, n); err != nil {
		return "?"
	}
	return b.String()
}

func absOr(p, base string) string {
	if p == "" {
		p = base
	}
	if !filepath.IsAbs(p) {
		if b, err := filepath.Abs(filepath.Join(base, p)); err == nil {
			return b
		}
	}
	return filepath.Clean(p)
}

// Len is the number of words.
func (c Command) Len() int { return len(c.words) }

// Word is the i-th word after quote removal, and whether its value is known
// without running anything.
func (c Command) Word(i int) (text string, known bool) { return c.words[i].text, c.words[i].known }

// Function: the name is a function the command line declares.
func (c Command) Function() bool { return c.function }
