//go:build !linux

package dirwatch

// ReleaseAll: no watch is kept here.
func ReleaseAll() {}
