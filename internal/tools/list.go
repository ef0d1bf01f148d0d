package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/plural"
)

//go:embed description/list.md
var listDescription string

const (
	listDefaultDepth = 3
	listMaxEntries   = 500
)

type listTool struct{ ws *Workspace }

type listArgs struct {
	Path  string `json:"path"`
	Depth int    `json:"depth"`
}

type listEntry struct {
	parts []string // path below the listed directory
	isDir bool
	link  string // symlink target
}

func (listTool) Name() string        { return List }
func (listTool) Description() string { return listDescription }
func (listTool) Facts() Facts {
	return Facts{Kind: chat.ToolRead, Effect: EffectNone, Paths: true, Plan: true, Explore: true, General: true,
		Claude: []string{"LS"}}
}
func (listTool) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"Directory (default \".\")"},` +
		`"depth":{"type":"integer","description":"Levels to descend (default 3)"}}}`)
}

func (t listTool) Prepare(c *Call) error {
	a, err := decodeArgs[listArgs](c)
	if err != nil {
		return err
	}
	a.Path = orDot(a.Path)
	c.Subject = a.Path
	return c.addPath(t.ws, a.Path, false)
}

func (t listTool) Run(ctx context.Context, c *Call) (Result, error) {
	a := c.Args.(*listArgs)
	tg, fail := c.target(t.ws, 0)
	if fail != nil {
		return *fail, nil
	}
	if res, ok := checkDir(tg, List); !ok {
		return res, nil
	}
	depth := a.Depth
	if depth <= 0 {
		depth = listDefaultDepth
	}
	entries, err := collectEntries(ctx, tg.Abs, t.ws.Root, depth)
	if err != nil {
		return walkFailure(ctx, tg.Rel, err)
	}
	total := len(entries)
	if total > listMaxEntries {
		slices.SortFunc(entries, func(x, y listEntry) int {
			if d := len(x.parts) - len(y.parts); d != 0 {
				return d
			}
			return slices.Compare(x.parts, y.parts)
		})
		entries = entries[:listMaxEntries]
	}
	slices.SortFunc(entries, func(x, y listEntry) int { return slices.Compare(x.parts, y.parts) })
	return Result{OK: true, Content: renderTree(tg.Rel, entries, total), Summary: plural.Of(total, "entry")}, nil
}

func collectEntries(ctx context.Context, root, wsRoot string, depth int) ([]listEntry, error) {
	var (
		mu      sync.Mutex
		entries []listEntry
	)
	rules := newIgnoreRules(root, wsRoot)
	err := walkTree(ctx, root, rules, depth, func(abs string, d fs.DirEntry) error {
		rel, _ := filepath.Rel(root, abs)
		e := listEntry{parts: strings.Split(filepath.ToSlash(rel), "/"), isDir: d.IsDir()}
		if d.Type()&fs.ModeSymlink != 0 {
			e.link, _ = os.Readlink(abs)
		}
		mu.Lock()
		entries = append(entries, e)
		mu.Unlock()
		return nil
	})
	return entries, err
}

func renderTree(rel string, entries []listEntry, total int) string {
	var b strings.Builder
	b.WriteString(strings.TrimSuffix(rel, "/") + "/\n")
	if total == 0 {
		b.WriteString("(empty directory)\n")
	}
	for _, e := range entries {
		b.WriteString(strings.Repeat("  ", len(e.parts)))
		b.WriteString(e.parts[len(e.parts)-1])
		switch {
		case e.isDir:
			b.WriteString("/")
		case e.link != "":
			b.WriteString(" -> " + e.link)
		}
		b.WriteString("\n")
	}
	if total > len(entries) {
		fmt.Fprintf(&b, "[showing %d of %d entries; list a subdirectory or use a smaller depth]\n", len(entries), total)
	}
	return b.String()
}

// checkDir fails unless tg is an existing directory.
func checkDir(tg target, tool string) (Result, bool) {
	fi, err := os.Stat(tg.Abs)
	if err != nil {
		return fileFailure(tg.Rel, err), false
	}
	if !fi.IsDir() {
		return Failure("%s is a file, not a directory; use read to see it (%s lists directories)", tg.Rel, tool), false
	}
	return Result{}, true
}

func orDot(p string) string {
	if p == "" {
		return "."
	}
	return p
}

// walkFailure reports a walk that did not finish: a cancelled context is the
// run's error, anything else a Failure the model sees.
func walkFailure(ctx context.Context, rel string, err error) (Result, error) {
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	return Failure("cannot walk %s: %v", rel, err), nil
}
