package app

import (
	"os"
	"syscall"
)

// endSignals end coder in order, as Ctrl+C does a headless run: the run's
// context is cancelled, so every sandboxed process is stopped and what it
// changed among the control files is put back before coder exits. SIGHUP
// is the terminal closing; SIGQUIT would otherwise end the process at once.
// (A SIGKILL or a crash is covered by the sandbox's journal, at the next
// start.)
var endSignals = []os.Signal{syscall.SIGHUP, syscall.SIGTERM, syscall.SIGQUIT}
