package tools

import (
	"os/exec"
	"time"
)

// Env is what the built-in tools need from the program.
type Env struct {
	Workspace *Workspace
	// CommandTimeout is bash's default and maximum time limit per call
	// (safety.command_timeout_ms); 0 means no limit.
	CommandTimeout time.Duration
	// OutputLimit caps each of bash's stdout and stderr, in bytes
	// (safety.output_limit_bytes); 0 means no cap.
	OutputLimit int
	// Shell runs bash commands as `Shell -c command`; "" means /bin/bash.
	Shell string
	// Tracker remembers which files the model has read, for the edit guards
	// of write, edit and patch. The orchestrator keeps one per session; nil
	// means a fresh one shared by the tools of one Builtins call.
	Tracker *ReadTracker
	// BeforeChange, when set, is called with the absolute path of each file
	// write, edit or patch is about to change, create or delete (both paths
	// of a move), once per path and call, after the call was validated and
	// before anything is written. An error aborts the call with nothing
	// written. The orchestrator snapshots prior content there for /undo.
	BeforeChange func(abs string) error
	// SecretValues are values (the API key) no tool's environment may carry:
	// bash drops environment variables that contain one.
	SecretValues []string
	// Supervise, when set, wraps each bash command so its processes die
	// with coder (see package supervise); it sets the SysProcAttr.
	Supervise func(*exec.Cmd) *exec.Cmd
	// Sandbox, when set, returns the command running a bash call under an
	// OS sandbox (shell -c the call's command), or nil to run it as usual.
	Sandbox func(c *Call, shell string) (*exec.Cmd, error)
	// Files is where read, write, edit and patch read and write file
	// content; nil means the disk (DiskFiles).
	Files Files
}

// Builtins returns the built-in tools: read, list, glob, grep, write, edit,
// patch, bash.
func Builtins(env Env) []Tool {
	ws := env.Workspace
	tracker := env.Tracker
	if tracker == nil {
		tracker = NewReadTracker()
	}
	files := env.Files
	if files == nil {
		files = DiskFiles{}
	}
	g := fileGuard{tracker: tracker, beforeChange: env.BeforeChange, files: files}
	return []Tool{
		readTool{ws: ws, tracker: tracker, files: files},
		listTool{ws: ws},
		globTool{ws: ws},
		grepTool{ws: ws},
		writeTool{ws: ws, g: g},
		editTool{ws: ws, g: g},
		patchTool{ws: ws, g: g, write: files.WriteFile},
		bashTool{ws: ws, shell: env.Shell, maxTimeout: env.CommandTimeout, outputLimit: env.OutputLimit,
			sandbox: env.Sandbox, secrets: env.SecretValues,
			supervise: env.Supervise},
	}
}
