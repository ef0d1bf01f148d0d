package config

import (
	"fmt"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// LSP configures the language servers that check the files the model edits
// (SPEC §22): after write, edit and patch, the tool result carries the new
// problems in the changed files; auto-verify says "LSP clean".
type LSP struct {
	// Enabled turns the checks on. A server starts only when a file of its
	// language is first edited, and only when its command is found.
	Enabled bool `json:"enabled"`
	// WaitMS bounds how long an edit's result waits for a running server.
	WaitMS int `json:"wait_ms"`
	// StartWaitMS bounds how long the first edit of a language waits for
	// its server to start; a server still starting then goes on in the
	// background and the edit's result does not wait for it.
	StartWaitMS int `json:"start_wait_ms"`
	// Warnings reports new warnings too, not only errors.
	Warnings bool `json:"warnings"`
	// Servers by name. An entry named like a built-in one changes only the
	// fields it sets; "disabled": true turns one off.
	Servers map[string]LSPServer `json:"servers"`
}

// LSPServer is one language server, spoken to over its stdin and stdout.
type LSPServer struct {
	// Command is the program: a name looked up on PATH, or a path.
	Command string   `json:"command"`
	Args    []string `json:"args,omitempty"`
	// Patterns are the files it checks: a pattern without "/" matches the
	// file's name ("*.go"), one with "/" its path in the workspace
	// ("web/**/*.ts").
	Patterns []string `json:"patterns"`
	// Env adds variables to its environment.
	Env map[string]string `json:"env,omitempty"`
	// InitOptions are sent as initializationOptions; Settings answer the
	// server's workspace/configuration requests.
	InitOptions map[string]any `json:"init_options,omitempty"`
	Settings    map[string]any `json:"settings,omitempty"`
	Disabled    bool           `json:"disabled,omitempty"`
}

// defaultLSP: on, errors only, a bound an edit's result can afford, and
// the usual server of each language (each used only when installed).
func defaultLSP() LSP {
	return LSP{
		Enabled:     true,
		WaitMS:      1500,
		StartWaitMS: 10_000,
		Servers:     defaultLSPServers(),
	}
}

func defaultLSPServers() map[string]LSPServer {
	return map[string]LSPServer{
		"gopls": {Command: "gopls", Patterns: []string{"*.go"}},
		// Automatic typing acquisition runs npm over the network, which
		// the sandbox does not have: it would only add a process.
		"typescript": {Command: "typescript-language-server", Args: []string{"--stdio"},
			Patterns:    []string{"*.ts", "*.tsx", "*.mts", "*.cts", "*.js", "*.jsx", "*.mjs", "*.cjs"},
			InitOptions: map[string]any{"disableAutomaticTypingAcquisition": true}},
		"pyright":       {Command: "pyright-langserver", Args: []string{"--stdio"}, Patterns: []string{"*.py", "*.pyi"}},
		"rust-analyzer": {Command: "rust-analyzer", Patterns: []string{"*.rs"}},
		"clangd":        {Command: "clangd", Patterns: []string{"*.c", "*.h", "*.cc", "*.cpp", "*.cxx", "*.hh", "*.hpp", "*.hxx"}},
	}
}

// mergeLSPServers lays the servers a file set (decoded into
// l.Config.LSP.Servers over an emptied map) over the earlier layers' field
// by field: encoding/json would replace a whole entry, losing the
// built-in command or patterns of one whose args alone were changed.
func (l *Loaded) mergeLSPServers(prev map[string]LSPServer, raw map[string]any) {
	added := l.Config.LSP.Servers
	l.Config.LSP.Servers = prev
	lsp, _ := raw["lsp"].(map[string]any)
	set, _ := lsp["servers"].(map[string]any)
	if set == nil {
		if _, ok := lsp["servers"]; ok { // "servers": null clears them
			l.Config.LSP.Servers = nil
		}
		return
	}
	if l.Config.LSP.Servers == nil {
		l.Config.LSP.Servers = map[string]LSPServer{}
	}
	for name, s := range added {
		keys, _ := set[name].(map[string]any)
		merged := l.Config.LSP.Servers[name]
		for k := range keys {
			switch k {
			case "command":
				merged.Command = s.Command
			case "args":
				merged.Args = s.Args
			case "patterns":
				merged.Patterns = s.Patterns
			case "env":
				merged.Env = s.Env
			case "init_options":
				merged.InitOptions = s.InitOptions
			case "settings":
				merged.Settings = s.Settings
			case "disabled":
				merged.Disabled = s.Disabled
			}
		}
		l.Config.LSP.Servers[name] = merged
	}
}

func validateLSP(ps *problems, c LSP) {
	ps.atLeast("lsp.wait_ms", c.WaitMS, 0)
	ps.atLeast("lsp.start_wait_ms", c.StartWaitMS, 0)
	for _, name := range slices.Sorted(maps.Keys(c.Servers)) {
		s, key := c.Servers[name], "lsp.servers."+name
		if s.Disabled {
			continue
		}
		if strings.TrimSpace(s.Command) == "" {
			ps.add(key+".command", "must name the server's program")
		}
		if len(s.Patterns) == 0 {
			ps.add(key+".patterns", `must list the files it checks, such as ["*.go"]`)
		}
		for i, p := range s.Patterns {
			if !doublestar.ValidatePattern(p) || path.IsAbs(p) {
				ps.add(fmt.Sprintf("%s.patterns[%d]", key, i), "is not a valid relative glob pattern: %q", p)
			}
		}
	}
}
