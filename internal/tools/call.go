package tools

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/control"
	"github.com/coder-agent/coder/internal/sandbox"
	"github.com/coder-agent/coder/internal/shell"
)

// The names of the tools: every package names a tool through these.
const (
	Read         = "read"
	List         = "list"
	Glob         = "glob"
	Grep         = "grep"
	Write        = "write"
	Edit         = "edit"
	Patch        = "patch"
	Bash         = "bash"
	BashOutput   = "bash_output"
	BashKill     = "bash_kill"
	Fetch        = "fetch"
	Skill        = "skill"
	TodoRead     = "todoread"
	TodoWrite    = "todowrite"
	Question     = "question"
	ExitPlanMode = "exit_plan_mode"
	Task         = "task"
)

// Call is one tool call of the model, decoded and checked exactly once
// (Registry.Decode) before anything else looks at it: the policy, the
// approval prompt, the undo recorder, the renderers and the tool's Run all
// read this value.
type Call struct {
	ID   string
	Name string
	// Raw is the argument text as the model sent it, kept for output.
	Raw string
	// Tool is nil when Failure says why there is none.
	Tool Tool
	// Failure, when set, is the call's whole result: the name is empty or
	// unknown, or the arguments are malformed or break the schema. Such a
	// call is never run and nobody is asked about it.
	Failure *Result

	// Input is the checked argument object (JSON, normalised).
	Input json.RawMessage
	// Args is the tool's typed arguments: a pointer to its params struct.
	Args any
	// Kind says what the call does (the tool's Facts.Kind unless Prepare
	// says otherwise: a patch that deletes or moves).
	Kind chat.ToolKind
	// ReadOnly: the call changes nothing; a batch of such calls runs
	// concurrently.
	ReadOnly bool
	// Paths are the files and directories the call reads or writes,
	// resolved against the workspace (symlinks followed).
	Paths []Path
	// Shell is the parsed command line of a bash call.
	Shell *shell.Analysis
	// Subject is what a person approves and what "always" remembers: the
	// exact command, path or URL. Policy patterns of tools other than bash
	// and the file tools match it.
	Subject string
	// Summary is a few words for the tool-start line.
	Summary string
	// Reasons are the tool-level reasons the call needs a person's
	// approval: dangerous commands, paths outside the workspace, secrets.
	Reasons []string

	// OutsideApproved is set when a person (or a rule) approved the call's
	// paths outside the workspace; Run refuses such paths otherwise, so a
	// skipped approval fails closed.
	OutsideApproved bool
	// Sandbox is what the call's commands may change, as one typed value
	// from the mode to the sandbox's backend: the mode's (agent.Mode.Access:
	// plan mode's ReadOnly, so even an approved command cannot change the
	// workspace), or FullAccess when a person let this one command run
	// again outside the OS sandbox after the sandbox refused it.
	Sandbox sandbox.Policy
}

// Path is a path a call names, resolved.
type Path struct {
	// Arg is the path as the model wrote it.
	Arg string
	// Abs is absolute, cleaned, with symlinks followed.
	Abs string
	// Rel is Abs relative to the workspace with slashes ("." for the root),
	// or Abs when outside.
	Rel    string
	Inside bool
	// Write: the call changes, creates or deletes it.
	Write bool
}

// Writes are the paths the call changes.
func (c *Call) Writes() []Path {
	var out []Path
	for _, p := range c.Paths {
		if p.Write {
			out = append(out, p)
		}
	}
	return out
}

// Unknown is the result of a call to a tool that does not exist.
func Unknown(name string, available []string) Result {
	if strings.TrimSpace(name) == "" {
		return Failure("the tool call has no tool name; available: %s", strings.Join(available, ", "))
	}
	return Failure("unknown tool %q; available: %s", name, strings.Join(available, ", "))
}

// Decode turns a model's tool call into a Call: the tool looked up, the
// arguments parsed and checked against its schema, then read by the tool
// (Prepare). Anything wrong becomes c.Failure, a result naming the problem;
// nothing the model sends can crash the program.
func (r *Registry) Decode(tc chat.ToolCall) (c *Call) {
	c = &Call{ID: tc.ID, Name: tc.Name, Raw: tc.Arguments, Kind: chat.ToolOther}
	t, ok := r.Get(tc.Name)
	if !ok {
		return c.fail(Unknown(tc.Name, r.Names()))
	}
	c.Tool, c.Kind = t, t.Facts().Kind
	c.ReadOnly = readOnly(c.Kind)
	input, fail := checkArgs(t, tc.Arguments)
	if fail != nil {
		return c.fail(*fail)
	}
	c.Input = input
	defer func() {
		if p := recover(); p != nil {
			c.fail(Failure("tool %s could not read its arguments: %v", t.Name(), p))
		}
	}()
	if err := t.Prepare(c); err != nil {
		return c.fail(Failure("invalid arguments for %s: %v", t.Name(), err))
	}
	if c.Summary == "" {
		c.Summary = c.Subject
	}
	for _, p := range c.Paths {
		if !p.Inside {
			c.Reasons = appendNew(c.Reasons, "path outside workspace: "+p.Abs)
		} else if r := control.Reason(p.Rel); p.Write && r != "" {
			c.Reasons = appendNew(c.Reasons, r)
		}
	}
	return c
}

func (c *Call) fail(r Result) *Call {
	c.Failure = &r
	return c
}

// decodeArgs reads the checked input into a new T, stores it as c.Args and
// returns it.
func decodeArgs[T any](c *Call) (*T, error) {
	a := new(T)
	if len(c.Input) > 0 {
		if err := json.Unmarshal(c.Input, a); err != nil {
			return nil, err
		}
	}
	c.Args = a
	return a, nil
}

// addPath resolves p against ws and adds it to c.Paths.
func (c *Call) addPath(ws *Workspace, p string, write bool) error {
	abs, inside, err := ws.Resolve(p)
	if err != nil {
		return fmt.Errorf("invalid path %q: %v", p, err)
	}
	c.Paths = append(c.Paths, Path{Arg: p, Abs: abs, Rel: ws.Rel(abs), Inside: inside, Write: write})
	return nil
}

// target resolves the i-th path of c again for Run (the file system may
// have changed since Prepare), failing when it is outside the workspace
// without approval.
func (c *Call) target(ws *Workspace, i int) (target, *Result) {
	return ws.resolveArg(c.Paths[i].Arg, c.OutsideApproved)
}

func appendNew(list []string, s string) []string {
	for _, have := range list {
		if have == s {
			return list
		}
	}
	return append(list, s)
}
