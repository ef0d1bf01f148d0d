package tools

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"regexp"
	"regexp/syntax"
	"strings"
	"sync"
)

// rgArgs makes rg follow the rules of the built-in walker: .gitignore files
// only (no .ignore/.rgignore, global or info/exclude), applied with or without
// a git repository, hidden files searched, .git skipped, no config file, raw
// bytes (no BOM transcoding). Parent-directory .gitignore files are applied by
// filtering rg's results through the shared ignoreRules instead, because rg
// mis-anchors "/pattern" rules from a parent directory.
func rgArgs(q *grepQuery) []string {
	args := []string{"--json", "--no-config", "--hidden", "--no-require-git",
		"--no-ignore-parent", "--no-ignore-dot", "--no-ignore-global", "--no-ignore-exclude",
		"--no-messages", "--encoding", "none", "--glob", "!.git", "--glob", "!.coder/sessions", "--glob", "!.coder/coder.db*"}
	if simpleGlob().MatchString(q.include) && strings.Count(q.include, "{") <= 1 {
		// A file-type glob narrows rg's walk without overriding ignore
		// rules (--glob would); accepts still decides.
		args = append(args, "--type-add", "coderinclude:"+q.include, "--type", "coderinclude")
	}
	return append(args, "--regexp", rgPattern(q.expr), "--", q.root)
}

// Word-boundary sentinels: private-use runes that regexp/syntax prints as
// \x{e000} and \x{e001}.
const (
	boundaryMark    = '\uE000'
	nonBoundaryMark = '\uE001'
)

// rgPattern rewrites a Go regular expression so that Rust's regex engine
// reads it the way Go does: regexp/syntax prints \w, \d, \s and POSIX classes
// as explicit ASCII sets and (?i) as a flag group, and word boundaries become
// ASCII ones, (?-u:\b). Without this rg would give \w, \d, \s and \b their
// Unicode meaning.
func rgPattern(expr string) string {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return expr
	}
	markBoundaries(re)
	s := re.String()
	s = strings.ReplaceAll(s, `\x{e000}`, `(?-u:\b)`)
	return strings.ReplaceAll(s, `\x{e001}`, `(?-u:\B)`)
}

func markBoundaries(re *syntax.Regexp) {
	switch re.Op {
	case syntax.OpWordBoundary:
		re.Op, re.Rune, re.Flags = syntax.OpLiteral, []rune{boundaryMark}, 0
	case syntax.OpNoWordBoundary:
		re.Op, re.Rune, re.Flags = syntax.OpLiteral, []rune{nonBoundaryMark}, 0
	}
	for _, sub := range re.Sub {
		markBoundaries(sub)
	}
}

// simpleGlob is a name glob that rg and doublestar read the same way.
var simpleGlob = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.*?{},-]+$`) })

// rgMessage is one line of `rg --json`.
type rgMessage struct {
	Type string `json:"type"`
	Data struct {
		Path         rgText `json:"path"`
		Lines        rgText `json:"lines"`
		LineNumber   int    `json:"line_number"`
		BinaryOffset *int64 `json:"binary_offset"`
	} `json:"data"`
}

// rgText is text rg gives as UTF-8 or, when it is not, as base64 bytes.
type rgText struct {
	Text  *string `json:"text"`
	Bytes *string `json:"bytes"`
}

func (t rgText) raw() []byte {
	if t.Text != nil {
		return []byte(*t.Text)
	}
	if t.Bytes != nil {
		b, _ := base64.StdEncoding.DecodeString(*t.Bytes)
		return b
	}
	return nil
}

// grepWithRg runs rg and feeds its matches, file by file, through the same
// filters as the built-in backend. A file rg found binary (binary_offset set,
// possibly after some matches) is dropped, as the built-in backend skips it.
func grepWithRg(ctx context.Context, rg string, q *grepQuery, set *matchSet) error {
	cmd := exec.CommandContext(ctx, rg, rgArgs(q)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("starting rg: %w", err)
	}
	searched, parseErr := readRgJSON(bufio.NewReaderSize(stdout, 256<<10), q, set)
	waitErr := cmd.Wait()
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if parseErr != nil {
		return parseErr
	}
	if !searched {
		return fmt.Errorf("%w: %v: %s", errRgDidNotSearch, waitErr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// errRgDidNotSearch: rg stopped before searching (it rejected the pattern or
// an option); the built-in backend takes over.
var errRgDidNotSearch = errors.New("rg did not search")

// readRgJSON feeds rg's matches to set; searched reports whether rg got as
// far as its closing summary.
func readRgJSON(r *bufio.Reader, q *grepQuery, set *matchSet) (searched bool, err error) {
	var pending []grepMatch
	for {
		line, err := r.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			var m rgMessage
			if jerr := json.Unmarshal(line, &m); jerr != nil {
				return searched, fmt.Errorf("reading rg output: %w", jerr)
			}
			switch m.Type {
			case "match":
				abs := string(m.Data.Path.raw())
				pending = append(pending, grepMatch{abs: abs, line: m.Data.LineNumber, text: matchText(m.Data.Lines.raw())})
			case "end":
				if m.Data.BinaryOffset == nil && len(pending) > 0 && q.keeps(pending[0].abs) {
					set.addFile(pending)
				}
				pending = nil
			case "summary":
				searched = true
			}
		}
		if err != nil {
			return searched, nil
		}
	}
}

// keeps applies to rg's results the filters the built-in walk applies.
func (q *grepQuery) keeps(abs string) bool {
	if !q.isDir {
		return true
	}
	return q.accepts(abs) && !q.rules.skipPath(abs)
}
