package app

import (
	"bufio"
	"fmt"
	"strings"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/termsafe"
)

// askTrust asks whether the control files of this run, as they are now,
// should apply: it names each file that is not trusted as it is (never
// trusted, or changed since the person trusted it) and what it asks for.
// "yes" records their content (config.Loaded.TrustControlFiles), so the
// next start asks again only if one of them changes. It reads one line,
// before the REPL takes the terminal.
func askTrust(stdio IO, l *config.Loaded) bool {
	var b strings.Builder
	fmt.Fprintf(&b, "These control files in %s ask for more than coder allows by default, and you have not trusted them as they are now:\n",
		termsafe.Visible(l.Cwd))
	for _, line := range l.UntrustedLines() {
		b.WriteString("  " + termsafe.Visible(line) + "\n")
	}
	b.WriteString("Trusting them lets their settings widen what the model may do and start the programs they name; read them first.\n" +
		"Trust these files as they are now? (y/n) ")
	fmt.Fprint(stdio.Out, b.String())
	line, _ := bufio.NewReader(stdio.In).ReadString('\n')
	switch strings.ToLower(strings.TrimSpace(line)) {
	case "y", "yes":
		if err := l.TrustControlFiles(); err != nil {
			fmt.Fprintln(stdio.Err, "coder: could not remember the trust:", err)
			return false
		}
		fmt.Fprintf(stdio.Out, "trusted as they are now; recorded in %s (a later change to them asks again)\n", l.TrustFile())
		return true
	}
	fmt.Fprintln(stdio.Out, "not trusted: those settings are ignored this time")
	return false
}
