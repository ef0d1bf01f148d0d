// Package tools holds the Tool interface, the registry and the built-in tools
// (one file each, with the model-facing description in description/<name>.md).
package tools

import (
	"context"
	"encoding/json"
	"fmt"
)

// Tool is something the model can call.
//
// Run's error return is for broken infrastructure only (the run fails). Every
// failure the model can do something about — bad arguments, a missing file, a
// non-zero exit — is a Result with OK false, and the loop goes on.
type Tool interface {
	Name() string
	// Description is written for a model: what the tool does and how to use it well.
	Description() string
	// Schema is the JSON Schema of the arguments object.
	Schema() json.RawMessage
	// ReadOnly tools never change the workspace; a batch of them runs concurrently.
	ReadOnly() bool
	// Run executes the call. args has already been checked against Schema.
	Run(ctx context.Context, args json.RawMessage) (Result, error)
}

// ApprovalChecker is implemented by tools that can ask for a person's approval
// for a specific call (bash danger analysis, paths outside the workspace).
// It returns the reasons; none means no tool-level approval is needed.
type ApprovalChecker interface {
	ApprovalReasons(args json.RawMessage) []string
}

// Summarizer is implemented by tools that describe a call in a few words for
// the tool-start line ("read main.go", "bash go test ./...").
type Summarizer interface {
	Summary(args json.RawMessage) string
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
