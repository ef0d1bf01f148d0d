//go:build !unix

package sandbox

// Guard is a guard that watches nothing: see ErrNoGuard. It keeps and
// puts back control files through directory handles (openat, renameat,
// inode numbers: handle.go, scan.go), which Windows does not have; with no
// OS sandbox there either (LevelNone), commands may change control files
// like any other file.
type Guard struct{}

// Watch returns a guard that watches nothing (ErrNoGuard).
func Watch(Profile) (*Guard, error) { return &Guard{}, nil }

// WatchJournaled is Watch: with nothing watched there is no journal.
func WatchJournaled(p Profile, _ string) (*Guard, error) { return Watch(p) }

// Coverage is nil: nothing was scanned (no mounts use it here).
func (*Guard) Coverage() *Coverage { return nil }

// Restore puts nothing back.
func (*Guard) Restore() ([]string, error) { return nil, nil }

// Accept has no baseline to take p into.
func (*Guard) Accept(string) error { return nil }

// AcceptAll has no baseline to take anything into.
func (*Guard) AcceptAll() error { return nil }

// Close has nothing to close.
func (*Guard) Close() {}

// RecoverJournals: no guard, so no journal was ever written.
func RecoverJournals(string, Profile) ([]string, error) { return nil, nil }

// Coverage reports ErrNoGuard: nothing protects the control files here.
func (Profile) Coverage() (Coverage, error) { return Coverage{}, ErrNoGuard }
