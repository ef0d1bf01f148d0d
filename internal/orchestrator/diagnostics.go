package orchestrator

import (
	"context"
	"path/filepath"

	"github.com/coder-agent/coder/internal/tools"
)

// Diagnostics are language servers' views of the files the model edits
// (SPEC §22; coder's are in package lsp). Each method returns within its
// own bound, however the servers behave.
type Diagnostics interface {
	// BeforeEdit is told the files (absolute) a call is about to change.
	BeforeEdit(paths []string)
	// AfterEdit returns what is new in the changed files: text for the
	// tool result and a line for people; "" when nothing is.
	AfterEdit(ctx context.Context, paths []string) (text, summary string)
	// Check is the end-of-turn word on the edited files: "LSP clean",
	// "LSP: …" with the errors, or "" when no server checked them.
	Check(ctx context.Context, paths []string) string
}

// checksEdits reports whether c is a call whose changed files the
// language servers look at: the tools that edit the files their arguments
// name (write, edit, patch).
func (o *Orchestrator) checksEdits(c *tools.Call) bool {
	return o.opts.Diagnostics != nil && c.Failure == nil && c.Tool.Facts().Effect == tools.EffectEdit
}

// beforeEdit tells the servers what a file tool is about to change.
func (o *Orchestrator) beforeEdit(c *tools.Call) {
	if !o.checksEdits(c) {
		return
	}
	var paths []string
	for _, p := range c.Writes() {
		paths = append(paths, p.Abs)
	}
	o.opts.Diagnostics.BeforeEdit(paths)
}

// afterEdit adds to a file tool's result what the servers found new in
// the files it changed.
func (o *Orchestrator) afterEdit(ctx context.Context, c *tools.Call, res tools.Result) tools.Result {
	if !o.checksEdits(c) || !res.OK || len(res.Changed) == 0 {
		return res
	}
	text, summary := o.opts.Diagnostics.AfterEdit(ctx, o.absPaths(res.Changed))
	if text != "" {
		res.Content += "\n\n" + text
	}
	if summary != "" {
		res.Summary += " · " + summary
	}
	return res
}

// lspLine is the language servers' word on the files this turn edited,
// for the verification line ("" when none checked them).
func (o *Orchestrator) lspLine(ctx context.Context, ts *turnState) string {
	if o.opts.Diagnostics == nil || len(ts.edited) == 0 || ctx.Err() != nil {
		return ""
	}
	return o.opts.Diagnostics.Check(ctx, o.absPaths(ts.edited))
}

// absPaths makes workspace-relative paths absolute.
func (o *Orchestrator) absPaths(rel []string) []string {
	out := make([]string, len(rel))
	for i, p := range rel {
		if filepath.IsAbs(p) {
			out[i] = p
		} else {
			out[i] = filepath.Join(o.opts.Workspace, filepath.FromSlash(p))
		}
	}
	return out
}
