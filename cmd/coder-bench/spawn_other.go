//go:build !linux

package main

import "syscall"

func spawnAttr() *syscall.SysProcAttr { return nil }
