//go:build unix

package tools

// defaultShell is the argv before the command of a bash call.
func defaultShell() []string { return []string{"/bin/bash", "-c"} }
