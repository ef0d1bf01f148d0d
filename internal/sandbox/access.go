package sandbox

import "path/filepath"

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
	return a
}
