// Package tools holds the Tool interface, the registry and the built-in tools
// (one file each, with the model-facing description in description/<name>.md).
package tools

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/coder-agent/coder/internal/chat"
)

// Tool is something the model can call.
//
// Run's error return is for broken infrastructure only (the run fails). Every
// failure the model can do something about — a missing file, a non-zero
// exit — is a Result with OK false, and the loop goes on.
type Tool interface {
	Name() string
	// Description is written for a model: what the tool does and how to use it well.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// Facts are what the rest of coder knows of the tool: its kind, what
	// its calls change, the modes and subagents that get it, its Claude
	// Code names. Every list of tools is derived from them.
	Facts() Facts
	// Prepare reads a call's checked arguments (c.Input) into c: Args,
	// Paths, Shell, Subject, Summary, Reasons, ReadOnly. An error is a
	// problem with the arguments: the call is answered with it, never run,
	// and nobody is asked about it.
	Prepare(c *Call) error
	// Run executes a prepared call.
	Run(ctx context.Context, c *Call) (Result, error)
}

// Previewer is implemented by tools that can show, before running, the
// change a call would make (the unified diff of write, edit, patch), so a
// person sees what they approve.
type Previewer interface {
	Preview(c *Call) (diff string, err error)
}

// Result is the outcome of one call.
type Result struct {
	OK bool
	// Content is what the model receives.
	Content string
	// Summary is one line for people ("12 lines", "exit 0 in 31ms").
	Summary string
	// Diff is a unified diff of what a mutating tool changed.
	Diff string
	// Changed lists the workspace-relative paths a mutating tool wrote.
	Changed []string
	// Bash is the typed result of a bash call.
	Bash *BashResult
	// Images are what the model is shown besides Content (read of an
	// image file).
	Images []chat.Image
}

// Failure is the standard failed result: {"ok":false,"error":"..."}.
func Failure(format string, a ...any) Result {
	msg := fmt.Sprintf(format, a...)
	b, _ := json.Marshal(struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}{false, msg})
	return Result{OK: false, Content: string(b), Summary: msg}
}
