package tools

import (
	"io/fs"
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
	// OutputDir is where bash keeps a stream whole when the model's result
	// holds only its head and tail: the session's private temp dir, which
	// the sandbox lets commands read. nil keeps none.
	OutputDir func() (string, error)
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
	// read is the content the call read of the file, and fi the file's
	// status taken before that read when it came from the disk (nil: the
	// call read none, or read an editor's buffer).
	BeforeChange func(abs, read string, fi fs.FileInfo) error
	// SecretValues are values (the API key) no tool's environment may carry:
	// bash drops environment variables that contain one.
	SecretValues []string
	// JournalDir is where multi-file patches journal their commit so a crash
	// leaves all or none (see RecoverPatches); "" keeps no journal.
	JournalDir string
	// Launcher starts bash's processes: coder's sandbox. nil means Direct
	// (no sandbox, each call in a process group of its own), for tests.
	Launcher Launcher
	// Tasks are the session's background commands; nil means a fresh list
	// for the tools of one Builtins call.
	Tasks *Tasks
	// Files, when set, is an editor's view of the files (ACP): read, write,
	// edit and patch read and write content through it. nil means the disk,
	// through the workspace's root.
	Files Files
}

// Builtins returns the built-in tools: read, list, glob, grep, write, edit,
// patch, bash, bash_output, bash_kill.
func Builtins(env Env) []Tool {
	ws := env.Workspace
	tracker := env.Tracker
	if tracker == nil {
		tracker = NewReadTracker()
	}
	launch, tasks := env.Launcher, env.Tasks
	if launch == nil {
		launch = Direct{Dir: ws.Root}
	}
	if tasks == nil {
		tasks = NewTasks()
	}
	g := fileGuard{ws: ws, tracker: tracker, beforeChange: env.BeforeChange, files: env.Files}
	return []Tool{
		readTool{ws: ws, tracker: tracker, files: env.Files},
		listTool{ws: ws},
		globTool{ws: ws},
		grepTool{ws: ws},
		writeTool{ws: ws, g: g},
		editTool{ws: ws, g: g},
		patchTool{ws: ws, g: g, journal: patchJournal{dir: env.JournalDir}, writeTemp: writeNewIn},
		bashTool{ws: ws, shell: env.Shell, maxTimeout: env.CommandTimeout, outputLimit: env.OutputLimit,
			outputDir: env.OutputDir, launch: launch, secrets: env.SecretValues, tasks: tasks},
		backgroundTool{tasks: tasks},
		backgroundTool{tasks: tasks, kill: true},
	}
}
