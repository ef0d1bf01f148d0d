package lsp

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/bmatcuk/doublestar/v4"
)

// Spec is one configured language server.
type Spec struct {
	Name    string
	Command string
	Args    []string
	// Patterns are the files it checks: without "/" a pattern matches the
	// file's name, with "/" its slash-separated path in the workspace.
	Patterns    []string
	Env         map[string]string
	InitOptions map[string]any
	Settings    map[string]any
}

// matches reports whether the server checks the file at rel (slashes,
// relative to the workspace).
func (s Spec) matches(rel string) bool {
	for _, p := range s.Patterns {
		var ok bool
		if strings.Contains(p, "/") {
			ok, _ = doublestar.Match(p, rel)
		} else {
			ok, _ = path.Match(p, path.Base(rel))
		}
		if ok {
			return true
		}
	}
	return false
}

// languageID is the LSP language identifier of a file, from its extension.
func languageID(file string) string {
	ext := strings.ToLower(filepath.Ext(file))
	switch ext {
	case ".ts", ".mts", ".cts":
		return "typescript"
	case ".tsx":
		return "typescriptreact"
	case ".js", ".mjs", ".cjs":
		return "javascript"
	case ".jsx":
		return "javascriptreact"
	case ".py", ".pyi":
		return "python"
	case ".rs":
		return "rust"
	case ".c", ".h":
		return "c"
	case ".cc", ".cpp", ".cxx", ".hh", ".hpp", ".hxx":
		return "cpp"
	}
	return strings.TrimPrefix(ext, ".")
}

// installHint says how to install one of the usual servers, by command.
func installHint(command string) (string, bool) {
	switch command {
	case "gopls":
		return "go install golang.org/x/tools/gopls@latest", true
	case "typescript-language-server":
		return "npm install -g typescript-language-server typescript", true
	case "pyright-langserver":
		return "npm install -g pyright", true
	case "rust-analyzer":
		return "rustup component add rust-analyzer", true
	case "clangd":
		return "install clangd with your system's package manager (apt install clangd)", true
	}
	return "", false
}
