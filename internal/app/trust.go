package app

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/config"
)

// askTrust asks, once per workspace, whether its project settings that
// widen what coder may do should apply; "yes" is remembered in the user
// config. It reads one line, before the REPL takes the terminal.
func askTrust(stdio IO, l *config.Loaded) bool {
	fmt.Fprintf(stdio.Out, "This workspace's project settings ask for more than coder allows by default:\n  %s\n"+
		"Only trust a workspace whose files you trust. Trust %s? (y/n) ",
		strings.Join(l.Ignored, "\n  "), l.Cwd)
	line, _ := bufio.NewReader(stdio.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		if err := l.TrustWorkspace(l.Cwd); err != nil {
			fmt.Fprintln(stdio.Err, "coder: could not remember the trust:", err)
			return false
		}
		fmt.Fprintln(stdio.Out, "trusted; remembered in", l.UserDir+"/config.json")
		return true
	}
	fmt.Fprintln(stdio.Out, "not trusted: those settings are ignored this time")
	return false
}
