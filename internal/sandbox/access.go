package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
)

// Access is what a sandboxed call may touch, in one typed value that
// every backend reads (as Codex's SandboxPolicy): whether the workspace is
// writable, the other writable roots, the protected paths inside them,
// the paths it may not read, and the network. Profile.Access resolves a
// Profile into it.
type Access struct {
	// Workspace is the project directory; readable always, writable when
	// WorkspaceWrite (build) and read-only otherwise (plan).
	Workspace      string
	WorkspaceWrite bool
	// WritableRoots are the other paths the command may change (the
	// private temp dir first, then the configured roots), absolute.
	WritableRoots []string
	// Protected stay read-only inside the writable paths, absolute.
	Protected []string
	// DenyRead are the paths the command may not read (those that would
	// hide a writable path are left out: Profile.Unenforced).
	DenyRead []string
	Network  bool
}

// Access resolves p into the access its commands get.
func (p Profile) Access() Access {
	a := Access{Workspace: filepath.Clean(p.Workspace), WorkspaceWrite: !p.ReadOnly, Network: p.Network}
	if p.TempDir != "" {
		a.WritableRoots = append(a.WritableRoots, filepath.Clean(p.TempDir))
	}
	for _, r := range p.WritableRoots {
		if filepath.IsAbs(r) {
			a.WritableRoots = append(a.WritableRoots, filepath.Clean(r))
		}
	}
	a.Protected = p.protected()
	a.DenyRead, _ = p.denyRead()
	// The control entries and workspace secrets a scan finds at any depth
	// are protected and denied as the Linux mounts do (Profile.spec). A
	// scan that fails leaves nothing known to protect: the workspace is
	// then read-only, never writable unprotected.
	cov, err := p.coverage()
	switch {
	case err == nil:
		a.Protected = append(a.Protected, cov.ReadOnly...)
		a.Protected = append(a.Protected, cov.Unbound...)
		a.DenyRead = append(a.DenyRead, cov.Masked...)
	case !errors.Is(err, fs.ErrNotExist):
		a.WorkspaceWrite = false
	}
	a.Protected = uniq(a.Protected)
	return a
}

// uniq keeps the first of each path, in order.
func uniq(paths []string) []string {
	seen := make(map[string]bool, len(paths))
	out := paths[:0]
	for _, p := range paths {
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out
}
