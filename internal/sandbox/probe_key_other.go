//go:build !linux

package sandbox

import "io/fs"

// currentProbeKey: there is nothing to probe, so nothing to cache.
func currentProbeKey(int) (probeKey, error) { return probeKey{}, errNotLinux }

// ownedByMe: no cache here.
func ownedByMe(fs.FileInfo) bool { return false }
