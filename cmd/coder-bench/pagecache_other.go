//go:build !linux

package main

// fromDisk leaves the binary as it is where there is no fadvise.
func fromDisk(string) error { return nil }
