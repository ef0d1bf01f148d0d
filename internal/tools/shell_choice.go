package tools

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
