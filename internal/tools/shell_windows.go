//go:build windows

package tools

import (
	"os"
	"os/exec"
)

// defaultShell is the argv before the command of a bash call.
func defaultShell() []string { return windowsShell(exec.LookPath, os.Getenv("ProgramFiles")) }
