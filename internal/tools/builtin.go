package tools

import "time"

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
}

// Builtins returns the built-in tools: read, list, glob, grep, write, edit, bash.
func Builtins(env Env) []Tool {
	ws := env.Workspace
	return []Tool{
		readTool{ws: ws},
		listTool{ws: ws},
		globTool{ws: ws},
		grepTool{ws: ws},
		writeTool{ws: ws},
		editTool{ws: ws},
		bashTool{ws: ws, shell: env.Shell, maxTimeout: env.CommandTimeout, outputLimit: env.OutputLimit},
	}
}
