//go:build !linux

package main

import "syscall"

// spawnMeasured: elsewhere measured commands start straight from
// coder-bench (Windows passes no extra files; macOS has no parent-death
// signal to end a command whose spawner was killed).
const spawnMeasured = false

func spawnAttr() *syscall.SysProcAttr { return nil }
