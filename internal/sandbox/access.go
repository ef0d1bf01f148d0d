package sandbox

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"

	"github.com/coder-agent/coder/internal/control"
)

// Access is what a sandboxed call may touch, in one typed value that
// every backend reads (as Codex's SandboxPolicy): the call's Policy
// (whether the workspace is writable), the other writable roots, the
// protected paths inside them, the paths it may not read, and the
// network. Profile.Access resolves a Profile into it.
type Access struct {
	// Workspace is the project directory; readable always, writable when
	// Policy is WorkspaceWrite (build) and read-only when ReadOnly (plan).
	Workspace string
	Policy    Policy
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
	a := Access{Workspace: filepath.Clean(p.Workspace), Policy: p.Policy, Network: p.Network}
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
	// What a scan finds at any depth is protected and denied as the Linux
	// mounts do (Profile.spec). A scan that fails leaves nothing known to
	// protect: the workspace is then read-only, never writable unprotected.
	cov, err := p.coverage()
	if err != nil && !errors.Is(err, fs.ErrNotExist) && a.Policy == WorkspaceWrite {
		a.Policy = ReadOnly
	}
	if a.Policy == WorkspaceWrite {
		a.Protected = appendNew(a.Protected, p.controlPaths(cov)...)
	}
	a.DenyRead = appendNew(a.DenyRead, cov.Masked...)
	return a
}

// controlPaths are the control entries a backend without Linux's mounts
// must deny writes to itself (Seatbelt): the workspace's own, which may not
// exist yet (a new .mcp.json), and those the guard's scan found at any
// depth (cov). A symlink entry is left to the guard: a path rule would
// protect its target.
func (p Profile) controlPaths(cov Coverage) []string {
	var out []string
	for _, n := range control.Names {
		out = append(out, filepath.Join(p.Workspace, n))
	}
	for _, e := range control.GitEntries {
		out = append(out, filepath.Join(p.Workspace, control.GitName, e))
	}
	return append(out, cov.ReadOnly...)
}

// appendNew appends to list those of more it does not hold yet.
func appendNew(list []string, more ...string) []string {
	for _, m := range more {
		if !slices.Contains(list, m) {
			list = append(list, m)
		}
	}
	return list
}
