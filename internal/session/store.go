package session

import (
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/coder-agent/coder/internal/chat"
	"github.com/coder-agent/coder/internal/lockfile"
	"modernc.org/sqlite" // registers the "sqlite" database/sql driver
	sqlite3 "modernc.org/sqlite/lib"
)

// ErrNotFound is wrapped by Load and Latest when there is no such session.
var ErrNotFound = errors.New("session not found")

// StoreOptions configures Open.
type StoreOptions struct {
	// Dir holds the database and the JSON snapshots, e.g. <workspace>/.coder.
	Dir string
	// SQLitePath defaults to <Dir>/coder.db.
	SQLitePath string
	// Workspace scopes List and Latest; sessions saved without a Workspace of
	// their own are recorded under it.
	Workspace string
	// Now defaults to time.Now; tests pass a fixed clock.
	Now func() time.Time
}

// Store persists sessions in SQLite (the record /resume reads) and as JSON
// snapshots in <Dir>/sessions (for people, and a fallback). It is safe for
// concurrent use; several processes may share one database file.
type Store struct {
	db          *sql.DB
	dbPath      string
	snapshotDir string
	lockDir     string // the owners' locks (owner.go)
	workspace   string
	now         func() time.Time

	mu sync.Mutex // serialises writes and guards persisted
	// persisted is what this process knows is in the messages table, per
	// session id, so a checkpoint appends only what is new.
	persisted map[string]persistState
	// snap holds the encoded messages of the last session snapshotted.
	snap *snapCache
	// owned are the sessions this process owns (owner.go).
	owned map[string]*lockfile.Lock
}

// persistState describes the stored rows of one session.
type persistState struct {
	count      int          // messages stored
	generation int          // Session.Generation when they were stored
	last       chat.Message // copy of the last stored message, to spot edits in place
	todos      []Todo
}

// Open opens (creating if needed) the store and brings its schema up to date.
// It runs on the start-up path of every invocation, so it does the least it
// can: one connection, pragmas from the DSN, one query when the schema is current.
func Open(opts StoreOptions) (*Store, error) {
	d, err := MakeDirs(opts)
	if err != nil {
		return nil, err
	}
	return d.Open()
}

// Dirs is a store whose directories exist (MakeDirs), not yet opened.
type Dirs struct {
	opts            StoreOptions
	dbPath, snapDir string
}

// MakeDirs creates the store's directories and the .gitignore that keeps
// its state out of the project's git status, the first half of Open. A
// caller that opens the database in the background (Dirs.Open) makes them
// before: what it starts meanwhile (coder's own git status) then sees the
// directory as it will be.
func MakeDirs(opts StoreOptions) (*Dirs, error) {
	if opts.Dir == "" {
		return nil, errors.New("session: store directory is empty")
	}
	if opts.SQLitePath == "" {
		opts.SQLitePath = filepath.Join(opts.Dir, "coder.db")
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	dbPath, err := filepath.Abs(opts.SQLitePath)
	if err != nil {
		return nil, fmt.Errorf("session: database path %s: %w", opts.SQLitePath, err)
	}
	snapDir := filepath.Join(opts.Dir, "sessions")
	for _, d := range []string{opts.Dir, filepath.Dir(dbPath), snapDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, fmt.Errorf("session: create directory %s: %w", d, err)
		}
	}
	writeGitignore(opts.Dir)
	return &Dirs{opts: opts, dbPath: dbPath, snapDir: snapDir}, nil
}

// Open opens the database in d, the second half of Open.
func (d *Dirs) Open() (*Store, error) {
	opts, dbPath := d.opts, d.dbPath
	db, err := sql.Open("sqlite", dsn(dbPath))
	if err != nil {
		return nil, fmt.Errorf("session: open database %s: %w", dbPath, err)
	}
	// One connection: statements of this process never contend with each
	// other for SQLite's lock (no SQLITE_BUSY within a process); other
	// processes are handled by WAL and busy_timeout.
	db.SetMaxOpenConns(1)
	st := &Store{
		db: db, dbPath: dbPath, snapshotDir: d.snapDir, lockDir: filepath.Join(opts.Dir, "locks"),
		workspace: cleanWorkspace(opts.Workspace), now: opts.Now,
		persisted: map[string]persistState{}, owned: map[string]*lockfile.Lock{},
	}
	if err := useWAL(db); err != nil {
		db.Close()
		return nil, fmt.Errorf("session: database %s: %w", dbPath, err)
	}
	if err := migrate(db, opts.Now); err != nil {
		db.Close()
		return nil, fmt.Errorf("session: database %s: %w", dbPath, err)
	}
	return st, nil
}

// busyTimeout is how long a statement waits for another process's lock.
const busyTimeout = 10 * time.Second

// pageCacheKiB is SQLite's cache_size: negative, a size in KiB (dsn).
const pageCacheKiB = -256

// dsn builds a file: URI so any character in the path is escaped rather than
// read as the start of the query. _txlock=immediate takes the write lock at
// BEGIN: a deferred transaction that later upgrades can fail with SQLITE_BUSY
// at once, without waiting, when another process wrote in between. WAL is
// not among the pragmas: useWAL sets it. The page cache is kept at 256 KiB
// (SQLite's default is 2 MB): a process reads a session once and then
// appends to it, and a long one read through a smaller cache reuses its
// pages instead of touching fresh memory for each (--resume of 5,000
// messages: 0.87x wall, 4 MB less peak memory).
func dsn(path string) string {
	q := url.Values{}
	for _, p := range []string{fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()), "foreign_keys(ON)", "synchronous(NORMAL)",
		fmt.Sprintf("cache_size(%d)", pageCacheKiB)} {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(path), RawQuery: q.Encode()}
	return u.String()
}

// useWAL puts the database in write-ahead-log mode, which the file keeps
// once set. Switching needs an exclusive lock and SQLite runs no busy
// handler for it, so a process opening a new database while another does
// (two coder processes started together in a new workspace) would fail at
// once with "database is locked": it retries here instead, within the busy
// timeout, and takes another process's switch as done. A file system that
// refuses WAL without an error keeps the mode it has, as before.
func useWAL(db *sql.DB) error {
	deadline := time.Now().Add(busyTimeout)
	wait := 2 * time.Millisecond
	for {
		var mode string
		err := db.QueryRow(`PRAGMA journal_mode`).Scan(&mode)
		if err == nil && mode != "wal" {
			err = db.QueryRow(`PRAGMA journal_mode=WAL`).Scan(&mode)
		}
		switch {
		case err == nil:
			return nil
		case !busy(err) || time.Now().After(deadline):
			return fmt.Errorf("switch to WAL mode: %w", err)
		}
		time.Sleep(wait)
		wait = min(2*wait, 100*time.Millisecond)
	}
}

// busy reports whether err is SQLite's SQLITE_BUSY (or an extended form).
func busy(err error) bool {
	var e *sqlite.Error
	return errors.As(err, &e) && e.Code()&0xff == sqlite3.SQLITE_BUSY
}

func cleanWorkspace(ws string) string {
	if ws == "" {
		return ""
	}
	return filepath.Clean(ws)
}

// Close closes the database. The store must not be used afterwards.
func (st *Store) Close() error {
	st.mu.Lock()
	defer st.mu.Unlock()
	if st.db == nil {
		return nil
	}
	st.releaseAll()
	err := st.db.Close()
	st.db = nil
	if err != nil {
		return fmt.Errorf("session: close database %s: %w", st.dbPath, err)
	}
	return nil
}

// Path is the database file.
func (st *Store) Path() string { return st.dbPath }

// SnapshotPath is where the JSON snapshot of session id is written.
func (st *Store) SnapshotPath(id string) string {
	return filepath.Join(st.snapshotDir, id+".json")
}

var errClosed = errors.New("session: store is closed")

// notFound is the error for an unknown id; its text tells the user what to do.
func notFound(id string) error {
	return fmt.Errorf("no session %q; run \"coder sessions\" or /sessions to see ids: %w", id, ErrNotFound)
}

// checkID refuses ids that could escape the snapshot directory.
func checkID(id string) error {
	if !ValidID(id) {
		return fmt.Errorf("invalid session id %q: ids use only letters, digits, '-' and '_'; run \"coder sessions\" or /sessions to see ids: %w", id, ErrNotFound)
	}
	return nil
}

// stateIgnore keeps coder's state out of the project's git status; the
// config, commands and skills beside it are the project's to commit.
const stateIgnore = `# coder's state (written by coder; config.json, commands/ and skills/ are yours)
coder.db
coder.db-*
sessions/
journal/
locks/
`

// writeGitignore writes dir/.gitignore when there is none. Best effort: a
// read-only directory fails later, where it matters.
func writeGitignore(dir string) {
	p := filepath.Join(dir, ".gitignore")
	if _, err := os.Lstat(p); err == nil {
		return
	}
	_ = os.WriteFile(p, []byte(stateIgnore), 0o644)
}
