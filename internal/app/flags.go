package app

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// Exit codes, in one place.
const (
	ExitOK        = 0
	ExitFailure   = 1 // the run failed: provider, an answer cut by the output limit, tool infrastructure, storage
	ExitUsage     = 2 // bad flags, bad config, no provider configured
	ExitStepLimit = 3 // max_steps model calls without finishing
	ExitCancelled = 130
)

// flags are the parsed command line.
type flags struct {
	print        bool
	outputFormat string
	model        string
	mode         string
	permissions  string
	cwd          string
	resume       string
	continueLast bool
	trust        bool
	version      bool
	help         bool
	// args are the positional arguments: a subcommand or the prompt.
	args []string
}

const usageText = `coder — a terminal AI coding agent

Usage:
  coder                      interactive session in the current directory
  coder -p "prompt"          run one turn headless, print the answer, exit
  echo "prompt" | coder -p   the same, prompt from stdin
  coder sessions             list recent sessions of this workspace
  coder acp                  serve an editor over the Agent Client Protocol (stdio)
  coder mcp serve            serve other agents over MCP (stdio): tools coder and coder_reply

Flags:
  -p, --print                headless: run one turn and exit
      --output-format F      text (default), json or stream-json (headless)
      --model M              model for this run
      --mode M               build (default) or plan
      --permissions P        strict, balanced, auto-edit, yolo (or build/plan)
      --cwd DIR              run in DIR instead of the current directory
      --resume ID            continue session ID
      --continue             continue the most recent session of this workspace
      --trust                trust this workspace for this run: its project settings may
                             widen permissions, approvals, servers and hooks
      --version              print the version
  -h, --help                 this help

Exit codes: 0 success, 1 run failed, 2 usage or configuration error,
3 step limit reached, 130 cancelled.
`

// parseFlags parses args with flags and positional arguments interleaved
// (coder -p "fix it" --output-format json).
func parseFlags(args []string) (flags, error) {
	var f flags
	fs := flag.NewFlagSet("coder", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.BoolVar(&f.print, "p", false, "")
	fs.BoolVar(&f.print, "print", false, "")
	fs.StringVar(&f.outputFormat, "output-format", "text", "")
	fs.StringVar(&f.model, "model", "", "")
	fs.StringVar(&f.mode, "mode", "", "")
	fs.StringVar(&f.permissions, "permissions", "", "")
	fs.StringVar(&f.cwd, "cwd", "", "")
	fs.StringVar(&f.resume, "resume", "", "")
	fs.BoolVar(&f.continueLast, "continue", false, "")
	fs.BoolVar(&f.trust, "trust", false, "")
	fs.BoolVar(&f.version, "version", false, "")
	fs.BoolVar(&f.help, "h", false, "")
	fs.BoolVar(&f.help, "help", false, "")
	for {
		if err := fs.Parse(args); err != nil {
			msg := err.Error()
			if name, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
				msg = "unknown flag " + name
			}
			return f, fmt.Errorf("%s (see coder --help)", msg)
		}
		rest := fs.Args()
		if len(rest) == 0 {
			return f, nil
		}
		if rest[0] == "--" {
			f.args = append(f.args, rest[1:]...)
			return f, nil
		}
		f.args = append(f.args, rest[0])
		args = rest[1:]
	}
}
