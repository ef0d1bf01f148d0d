package main

import "syscall"

// spawnAttr kills the measured command with its spawner, which coder-bench
// kills when the run takes too long.
func spawnAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL} }
