package app

import (
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
)

// Exit codes, in one place.
const (
	ExitOK        = 0
	ExitFailure   = 1 // the run failed: provider, an answer cut by the output limit, tool infrastructure, storage
	ExitUsage     = 2 // bad flags, bad config, no provider configured
	ExitStepLimit = 3 // max_steps model calls without finishing
	ExitBudget    = 4 // the next model call would have passed --max-budget-usd (budget.usd)
	ExitSchema    = 5 // the final answer did not match --json-schema, after one retry
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
	// images are --image files, budget --max-budget-usd (-1: not given),
	// schema --json-schema's file, rewind --rewind's turn (0: none).
	images []string
	budget float64
	schema string
	rewind int
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
      --image FILE           send an image (PNG, JPEG, GIF, WebP) with the prompt (headless;
                             repeatable); in a prompt, @shot.png or a pasted path does it too
      --max-budget-usd X     stop before a model call would take this run's cost past X
                             US dollars (catalog prices; budget.usd in the config)
      --json-schema FILE     headless: the final answer must be JSON valid against the
                             JSON Schema in FILE (the model is asked once more if not)
      --rewind N             with --resume or --continue: first put the files and the
                             conversation back as they were before the session's turn N
      --version              print the version
  -h, --help                 this help

Exit codes: 0 success, 1 run failed, 2 usage or configuration error,
3 step limit reached, 4 budget reached, 5 answer not valid against
--json-schema, 130 cancelled.
`

// parseFlags parses args with flags and positional arguments interleaved
// (coder -p "fix it" --output-format json).
func parseFlags(args []string) (flags, error) {
	f := flags{budget: -1}
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
	fs.Func("image", "", func(v string) error {
		f.images = append(f.images, v)
		return nil
	})
	fs.Func("max-budget-usd", "", func(v string) error {
		u, err := strconv.ParseFloat(v, 64)
		if err != nil || u <= 0 || math.IsInf(u, 0) {
			return fmt.Errorf("must be a positive number of US dollars, got %q", v)
		}
		f.budget = u
		return nil
	})
	fs.StringVar(&f.schema, "json-schema", "", "")
	fs.Func("rewind", "", func(v string) error {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("must be a turn number from 1, got %q", v)
		}
		f.rewind = n
		return nil
	})
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
