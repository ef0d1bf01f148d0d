package main

import (
	"os"
	"syscall"
)

// spawnMeasured: on Linux every measured command starts from a spawner.
const spawnMeasured = true

// A test binary of this package acts as the spawner too. The report pipe
// is not the measured command's to inherit.
func init() {
	if len(os.Args) > 1 && os.Args[1] == spawnArg {
		syscall.CloseOnExec(3)
		os.Exit(runSpawned(os.Args[2:], os.NewFile(3, "report")))
	}
}

// spawnAttr kills the measured command with its spawner, which coder-bench
// kills when the run takes too long.
func spawnAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
