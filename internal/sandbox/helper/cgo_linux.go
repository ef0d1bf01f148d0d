//go:build cgo

package helper

// cgoLinked: a build with cgo links runtime/cgo (package net does), and
// then syscall.AllThreadsSyscall refuses.
const cgoLinked = true
