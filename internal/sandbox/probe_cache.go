package sandbox

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
)

// The namespace probe starts the helper in new namespaces, which costs a
// process; its answer only changes with the binary, the kernel or the
// system's settings, so a success is remembered and the next start reads
// it instead.
//
// The file lives in the user's runtime dir ($XDG_RUNTIME_DIR/coder), else
// in a directory of the user's own in the system temp dir (coder-UID, mode
// 0700, checked before use). Both last until reboot, as the boot id in the
// key does, and both lie outside what sandboxed commands may touch (the
// runtime dir is masked, /tmp is read-only in the sandbox) and outside
// HOME, which coder's runs leave as they found it.
//
// Only a success is remembered, so a forged entry can only claim that
// namespaces work; if they do not, every command fails to start (the
// helper's set-up fails closed) and the entry is dropped
// (forgetProbeCache). A failure, the Landlock ABI (one system call) and
// ForceLevelEnv are always found afresh.

// probeCacheName is the cache file in probeCacheDir.
const probeCacheName = "sandbox-probe.json"

// probeCacheKeys bounds the successes kept: one per binary and system, so
// a few coder builds side by side do not evict each other.
const probeCacheKeys = 8

// probeKey is everything the namespace probe's answer depends on. A
// change to any field probes again.
type probeKey struct {
	// Exe is the helper binary: path, device, inode, size, change times.
	Exe string `json:"exe"`
	// Kernel is uname's release and version; Boot the boot id, so a
	// reboot (into the same kernel, with other settings) probes again.
	Kernel string `json:"kernel"`
	Boot   string `json:"boot"`
	// User is uid:gid; NS the user and mount namespaces coder runs in (a
	// container sharing the home directory is another system).
	User string `json:"user"`
	NS   string `json:"ns"`
	// Sysctl holds the settings that allow or forbid user namespaces.
	Sysctl string `json:"sysctl"`
	// ABI is the Landlock ABI the probe applied inside.
	ABI int `json:"abi"`
}

// probeCacheFile is the cache's path, "" when there is no safe place.
func probeCacheFile() string {
	dir := probeCacheDir()
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, probeCacheName)
}

// probeCacheDir is the user's directory for the cache, made if missing:
// one only this user can write (owned by the user, no access for others),
// or "" (another user made /tmp/coder-UID, say).
func probeCacheDir() string {
	dir := filepath.Join(os.TempDir(), fmt.Sprintf("coder-%d", os.Getuid()))
	if rt := os.Getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(rt) {
		dir = filepath.Join(rt, "coder")
	}
	if !filepath.IsAbs(dir) {
		return ""
	}
	_ = os.Mkdir(dir, 0o700)
	fi, err := os.Lstat(dir)
	if err != nil || !fi.IsDir() || fi.Mode().Perm()&0o077 != 0 || !ownedByMe(fi) {
		return ""
	}
	return dir
}

// readProbeCache returns the remembered successes; a missing, unreadable
// or corrupt file is an empty cache.
func readProbeCache(path string) []probeKey {
	data, err := os.ReadFile(path)
	if err != nil || len(data) > 64<<10 {
		return nil
	}
	var keys []probeKey
	if json.Unmarshal(data, &keys) != nil {
		return nil
	}
	return keys
}

// probeCached reports whether the namespaces probe succeeded before for
// key k.
func probeCached(path string, k probeKey) bool {
	return path != "" && slices.Contains(readProbeCache(path), k)
}

// rememberProbe records a success for k, most recent first, replacing the
// file atomically (a temp file renamed over it) so a concurrent reader
// sees the old list or the new one. Failing to write only costs a probe
// next time.
func rememberProbe(path string, k probeKey) {
	if path == "" {
		return
	}
	keys := slices.DeleteFunc(readProbeCache(path), func(o probeKey) bool { return o == k })
	keys = append([]probeKey{k}, keys...)
	if len(keys) > probeCacheKeys {
		keys = keys[:probeCacheKeys]
	}
	data, err := json.Marshal(keys)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".sandbox-probe-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(data)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		_ = os.Remove(tmp.Name())
	}
}

// forgetProbeCache drops every remembered success: after a helper could
// not set the sandbox up (the system changed in a way the key does not
// see), or when coder doctor asks for a fresh look.
func forgetProbeCache() {
	if path := probeCacheFile(); path != "" {
		_ = os.Remove(path)
	}
}

// probeNamespacesCached is probeNamespaces, answered from the cache when
// this binary succeeded on this system before (remembered).
func probeNamespacesCached(abi int) (remembered bool, err error) {
	path := probeCacheFile()
	key, keyErr := currentProbeKey(abi)
	if keyErr == nil && probeCached(path, key) {
		return true, nil
	}
	err = probeNamespaces(abi)
	if err == nil && keyErr == nil {
		rememberProbe(path, key)
	}
	return false, err
}

// ForgetProbe drops what earlier probes left in the cache, so that this
// process's first Probe looks afresh: coder doctor's report is always a
// new look.
func ForgetProbe() { forgetProbeCache() }
