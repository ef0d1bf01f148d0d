// Package version holds coder's version and answers `coder --version`
// before the rest of coder initialises.
//
// Go initialises a package after those it imports, choosing among the
// ready ones by import path; this one imports only os, so it runs among
// the first, before the session store's SQLite, Markdown, HTML or MCP
// packages set up their tables. Other command lines (flags beside
// --version) go through app's flag parser and print the same.
package version

import "os"

// Version is set at build time with
// -ldflags "-X github.com/coder-agent/coder/internal/version.Version=...".
var Version = "0.1.0-dev"

// Line is what --version prints.
func Line() string { return "coder " + Version + "\n" }

func init() {
	if len(os.Args) == 2 && (os.Args[1] == "--version" || os.Args[1] == "-version") {
		_, err := os.Stdout.WriteString(Line())
		if err != nil {
			os.Exit(1)
		}
		os.Exit(0)
	}
}
