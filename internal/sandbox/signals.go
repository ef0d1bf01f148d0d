package sandbox

import (
	"os"
	"syscall"
)

// EndSignals end a coder process in order, as Ctrl+C does a headless run:
// its context is cancelled, so every sandboxed process is stopped and what
// it changed among the control files is put back before coder exits.
// SIGHUP is the terminal closing; SIGQUIT would otherwise end the process
// at once. (A SIGKILL or a crash is covered by the sandbox's journal, at
// the next start.) app.Run, `coder sandbox` and an editor's terminal take
// them (coder's main SIGINT and SIGTERM too).
var EndSignals = []os.Signal{os.Interrupt, syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT}
