package tools

import (
	"path/filepath"
	"strings"
)

// ShellArgv is command as the platform's shell runs it, as a bash call
// without a configured shell does: /bin/bash on Unix; on Windows the
// choice of windowsShell. Hooks on Windows, which has no /bin/sh, run so.
func ShellArgv(command string) []string { return append(defaultShell(), command) }

// describeShell is the bash tool's description for a call run by argv:
// unchanged for bash; for PowerShell (Windows without bash) it says so,
// or the model would write sh for it (12 bytes more: the description's
// budget is tight).
func describeShell(desc string, argv []string) string {
	name := strings.ToLower(strings.TrimSuffix(filepath.Base(strings.ReplaceAll(argv[0], `\`, "/")), ".exe"))
	if name != "pwsh" && name != "powershell" {
		return desc
	}
	return strings.Replace(desc, "with `bash -c`", "with PowerShell `-Command`", 1)
}

// windowsShell is the shell a Windows bash call runs under: bash when
// there is one (Git for Windows, where its installer puts it, or a bash on
// PATH: Git's, MSYS2's or WSL's launcher), else PowerShell (7, then the
// one Windows ships). It returns the argv before the command.
func windowsShell(lookPath func(string) (string, error), programFiles string) []string {
	// A Windows path, built the same on any system (tests run on Linux).
	if p, err := lookPath(programFiles + `\Git\bin\bash.exe`); err == nil {
		return []string{p, "-c"}
	}
	if p, err := lookPath("bash"); err == nil {
		return []string{p, "-c"}
	}
	for _, ps := range []string{"pwsh", "powershell"} {
		if p, err := lookPath(ps); err == nil {
			return []string{p, "-NoProfile", "-NonInteractive", "-Command"}
		}
	}
	return []string{"powershell.exe", "-NoProfile", "-NonInteractive", "-Command"}
}
