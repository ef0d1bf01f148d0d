//go:build !cgo

package helper

// cgoLinked: see cgo_linux.go.
const cgoLinked = false
