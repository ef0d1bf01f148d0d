//go:build !linux

package sandbox

// currentProbeKey: there is nothing to probe, so nothing to cache.
func currentProbeKey(int) (probeKey, error) { return probeKey{}, errNotLinux }
