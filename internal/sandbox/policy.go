package sandbox

// Policy is what a call may change, decided once from the agent's mode
// (agent.Mode.Access) or by the person, and carried as this one value by
// the call (tools.Call.Sandbox), its Profile and its Access to the backend,
// as Codex's SandboxPolicy is: never a bool or a mode name on the way.
// The zero value is build mode's.
type Policy int

const (
	// WorkspaceWrite (build mode): the workspace and the writable roots
	// may change, the protected paths in them may not.
	WorkspaceWrite Policy = iota
	// ReadOnly (plan mode): the workspace is read-only too; only the
	// writable roots outside it (the temp dir, caches) may change.
	ReadOnly
	// FullAccess: no OS sandbox, containment only: a command the person
	// let run again outside the sandbox after it refused it, or the
	// person's own hooks.
	FullAccess
)

func (p Policy) String() string {
	switch p {
	case ReadOnly:
		return "read-only"
	case FullAccess:
		return "full-access"
	}
	return "workspace-write"
}
