// Package workspace is the sandbox of a loaded workspace: the profile the
// model's commands run under, built from the configuration and a call's
// typed access, its report and journal directory, and `coder sandbox`, one
// command run in it, which answers from this package's init
// (command.go). It imports no HTTP client, SQLite, Markdown or JSON
// Schema, nor net/url (weburl says why), so that SQLite, Markdown, JSON
// Schema, HTTP and the MCP SDK initialise only after it, if ever (what
// needs nothing it imports may still come first: Go initialises the
// ready packages in import-path order).
package workspace

import (
	"path/filepath"

	"github.com/coder-agent/coder/internal/config"
	"github.com/coder-agent/coder/internal/sandbox"
)

// Profile is the sandbox for the model's commands in the workspace l
// loaded, with access a and tempDir as the private TMPDIR: what bash
// calls, !cmd, auto-verify, sandboxed hooks, language servers and `coder
// sandbox` run under, and what `coder doctor` describes.
func Profile(l *config.Loaded, a sandbox.Policy, tempDir string) sandbox.Profile {
	cfg := l.Config.Sandbox
	ws := l.Config.Runtime.WorkspaceRoot
	writable, denyRead := l.SandboxPaths()
	// coder's own user configuration may hold an API key.
	denyRead = append(denyRead, filepath.Join(l.UserDir, "config.json"))
	gitDirs := sandbox.GitWorktree(ws)
	p := sandbox.Profile{
		Workspace:        ws,
		Policy:           a,
		WritableRoots:    append(writable, gitDirs...),
		GitDirs:          gitDirs,
		TempDir:          tempDir,
		DenyRead:         denyRead,
		DenyReadPatterns: l.SandboxPatterns(),
		Network:          cfg.Network == "on",
	}
	if cfg.Mode == "off" {
		p.Level = sandbox.LevelNone
	}
	return p
}

// JournalDir is where the sandbox keeps the baseline of the control
// files while commands run (sandbox.WatchJournaled): coder's user
// directory, which no command may write.
func JournalDir(l *config.Loaded) string {
	return filepath.Join(l.UserDir, "sandbox-journal")
}

// Report is the probe report as commands with profile p see it:
// sandbox.mode "off", or a person's leave to run one outside the sandbox
// (FullAccess), is no OS sandbox.
func Report(p sandbox.Profile) sandbox.Report {
	if p.Policy == sandbox.FullAccess {
		return sandbox.Probe().Limit(sandbox.LevelNone, "run outside the sandbox, as the person allowed")
	}
	return sandbox.Probe().Limit(p.Level, `sandbox.mode "off"`)
}
