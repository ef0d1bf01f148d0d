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

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/plural"
)

//go:embed description/glob.md
var globDescription string

const globMaxResults = 200

type globTool struct{ ws *Workspace }

type globArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path"`
	rest    string // the pattern below its fixed leading directories
}

type globHit struct {
	abs   string
	mtime time.Time
}

func (globTool) Name() string        { return Glob }
func (globTool) Description() string { return globDescription }
func (globTool) Facts() Facts {
	return Facts{Kind: chat.ToolSearch, Effect: EffectNone, Paths: true, Plan: true, Explore: true, General: true,
		Claude: []string{"Glob"}}
}
func (globTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Glob, e.g. **/*.go"},` +
		`"path":{"type":"string","description":"Directory to search (default \".\")"}},` +
		`"required":["pattern"]}`)
}

func (t globTool) Prepare(c *Call) error {
	a, err := decodeArgs[globArgs](c)
	if err != nil {
		return err
	}
	var dir string
	dir, a.rest = splitGlob(a.Path, a.Pattern)
	if !doublestar.ValidatePattern(a.rest) {
		return fmt.Errorf("invalid glob pattern %q", a.Pattern)
	}
	c.Subject, c.Summary = a.Pattern, a.Pattern
	if a.Path != "" && a.Path != "." {
		c.Summary = a.Pattern + " in " + a.Path
	}
	return c.addPath(t.ws, dir, false)
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

func (t globTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*globArgs)
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail, nil
	}
	if res, ok := checkDir(tg, Glob); !ok {
		return res, nil
	}
	hits, err := globWalk(ctx, tg.Abs, a.rest, t.ws.Root)
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
	return Result{OK: true, Content: b.String(), Summary: plural.Of(len(hits), "file")}, nil
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
