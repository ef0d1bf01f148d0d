package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/bmatcuk/doublestar/v4"
)

//go:embed description/glob.md
var globDescription string

const globMaxResults = 200

type globTool struct{ ws *Workspace }

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
}

type globHit struct {
	abs   string
	mtime time.Time
}

func (globTool) Name() string        { return "glob" }
func (globTool) Description() string { return globDescription }
func (globTool) ReadOnly() bool      { return true }
func (globTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Glob, e.g. **/*.go"},` +
		`"path":{"type":"string","description":"Directory to search (default \".\")"}},` +
		`"required":["pattern"]}`)
}

func (t globTool) Summary(args json.RawMessage) string {
	var a globArgs
	_ = json.Unmarshal(args, &a)
	if a.Path != "" && a.Path != "." {
		return a.Pattern + " in " + a.Path
	}
	return a.Pattern
}

func (t globTool) ApprovalReasons(args json.RawMessage) []string {
	var a globArgs
	_ = json.Unmarshal(args, &a)
	dir, _ := splitGlob(a.Path, a.Pattern)
	return t.ws.outsideReasons(dir)
}

// splitGlob moves the pattern's fixed leading directories into the search
// directory: ("src", "pkg/**/*.go") → ("src/pkg", "**/*.go").
func splitGlob(path, pattern string) (dir, rest string) {
	base, rest := doublestar.SplitPattern(filepath.ToSlash(pattern))
	if filepath.IsAbs(base) {
		return base, rest
	}
	return filepath.Join(orDot(path), base), rest
}

func (t globTool) Run(ctx context.Context, args json.RawMessage) (Result, error) {
	var a globArgs
	if fail := decode(args, &a); fail != nil {
		return *fail, nil
	}
	dir, rest := splitGlob(a.Path, a.Pattern)
	if !doublestar.ValidatePattern(rest) {
		return Failure("invalid glob pattern %q", a.Pattern), nil
	}
	tg, fail := t.ws.resolveArg(ctx, dir)
	if fail != nil {
		return *fail, nil
	}
	if res, ok := checkDir(tg, "glob"); !ok {
		return res, nil
	}
	hits, err := globWalk(ctx, tg.Abs, rest, t.ws.Root)
	if err != nil {
		return walkFailure(ctx, tg.Rel, err)
	}
	if len(hits) == 0 {
		return Result{OK: true, Content: fmt.Sprintf("No files match %s in %s", a.Pattern, orDot(a.Path)), Summary: "0 files"}, nil
	}
	slices.SortFunc(hits, func(x, y globHit) int {
		if c := y.mtime.Compare(x.mtime); c != 0 {
			return c
		}
		return strings.Compare(x.abs, y.abs)
	})
	var b strings.Builder
	for _, h := range hits[:min(len(hits), globMaxResults)] {
		b.WriteString(t.ws.Rel(h.abs) + "\n")
	}
	if len(hits) > globMaxResults {
		fmt.Fprintf(&b, "[showing the %d newest of %d files; narrow the pattern or path]\n", globMaxResults, len(hits))
	}
	return Result{OK: true, Content: b.String(), Summary: plural(len(hits), "file")}, nil
}

func globWalk(ctx context.Context, root, pattern, wsRoot string) ([]globHit, error) {
	depth := 0
	if !strings.Contains(pattern, "**") {
		depth = strings.Count(pattern, "/") + 1
	}
	var (
		mu   sync.Mutex
		hits []globHit
	)
	rules := newIgnoreRules(root, wsRoot)
	err := walkTree(ctx, root, rules, depth, func(abs string, d fs.DirEntry) error {
		if d.IsDir() {
			return nil
		}
		rel, _ := filepath.Rel(root, abs)
		if ok, _ := doublestar.Match(pattern, filepath.ToSlash(rel)); !ok {
			return nil
		}
		var mtime time.Time
		if fi, err := d.Info(); err == nil {
			mtime = fi.ModTime()
		}
		mu.Lock()
		hits = append(hits, globHit{abs: abs, mtime: mtime})
		mu.Unlock()
		return nil
	})
	return hits, err
}
