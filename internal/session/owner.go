package session

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/coder-agent/coder/internal/lockfile"
)

// A session has one owner: the process that writes it holds a lock on
// <Dir>/locks/<id>.lock (lockfile: released by the kernel when that
// process ends, a SIGKILL included). Every write of a session's rows
// claims it first, so two processes can never append to one session —
// the interleaved sequence numbers of two `--continue` at once, or one
// process marking the other's running call as interrupted.

// InUseError is a session another live process owns.
type InUseError struct {
	ID  string
	PID int // 0 when unknown
}

func (e *InUseError) Error() string {
	who := "another coder"
	if e.PID > 0 {
		who = fmt.Sprintf("another coder (process %d)", e.PID)
	}
	return fmt.Sprintf("session %s is in use by %s; resume it once that one has ended, or start a new session", e.ID, who)
}

// ErrInUse matches every *InUseError with errors.Is.
var ErrInUse = errors.New("session in use by another process")

func (e *InUseError) Is(target error) bool { return target == ErrInUse }

// Claim makes this process the owner of session id, or returns an
// *InUseError naming the live process that is. Claiming a session this
// store owns already is a no-op.
func (st *Store) Claim(id string) error {
	if err := checkID(id); err != nil {
		return fmt.Errorf("session: claim: %w", err)
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.ownLocked(id)
}

// Release gives up the ownership of session id (the process moved to
// another session); releasing one not owned does nothing.
func (st *Store) Release(id string) {
	st.mu.Lock()
	defer st.mu.Unlock()
	if l, ok := st.owned[id]; ok {
		l.Unlock()
		delete(st.owned, id)
	}
}

// ownLocked claims id; st.mu is held.
func (st *Store) ownLocked(id string) error {
	if _, ok := st.owned[id]; ok {
		return nil
	}
	l, err := lockfile.TryLock(filepath.Join(st.lockDir, id+".lock"))
	var held *lockfile.HeldError
	if errors.As(err, &held) {
		return &InUseError{ID: id, PID: held.PID}
	}
	if err != nil {
		return fmt.Errorf("session: claim %s: %w", id, err)
	}
	st.owned[id] = l
	return nil
}

// releaseAll ends every ownership (Close); st.mu is held.
func (st *Store) releaseAll() {
	for id, l := range st.owned {
		l.Unlock()
		delete(st.owned, id)
	}
}
