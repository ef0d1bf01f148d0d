package session

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strconv"
	"strings"
	"time"
)

//go:embed migrations/*.sql
var migrationFS embed.FS

// migration is one embedded file NNN_name.sql; its SQL is read only when it
// is applied (the fast path needs the versions alone).
type migration struct {
	version int
	name    string
}

func (m migration) sql() (string, error) {
	body, err := migrationFS.ReadFile("migrations/" + m.name)
	return string(body), err
}

// migrations lists the embedded files NNN_name.sql in version order.
func migrations() ([]migration, error) {
	names, err := fs.Glob(migrationFS, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var ms []migration
	for _, n := range names {
		base := strings.TrimPrefix(n, "migrations/")
		num, _, ok := strings.Cut(base, "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil || v <= 0 {
			return nil, fmt.Errorf("migration %s: name must be NNN_name.sql", base)
		}
		ms = append(ms, migration{version: v, name: base})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].version < ms[j].version })
	for i := 1; i < len(ms); i++ {
		if ms[i].version == ms[i-1].version {
			return nil, fmt.Errorf("migrations %s and %s share a version", ms[i-1].name, ms[i].name)
		}
	}
	return ms, nil
}

const createMigrationsTable = `CREATE TABLE IF NOT EXISTS schema_migrations (
    version    INTEGER PRIMARY KEY,
    applied_at INTEGER NOT NULL
)`

// migrate applies the migrations the database lacks in one transaction,
// together with their schema_migrations rows, so a crash leaves all of them
// or none (a migration must therefore be valid inside a transaction: no
// VACUUM, no journal_mode). One commit, not one per migration: each commit
// costs a sync, and a new workspace's first run applies them all. The fast
// path (schema current) is a single query.
func migrate(db *sql.DB, now func() time.Time) error {
	ms, err := migrations()
	if err != nil {
		return err
	}
	ctx := context.Background()
	if cur, err := schemaVersion(ctx, db); err == nil && cur >= ms[len(ms)-1].version {
		return nil
	}
	// In an (immediate) transaction: a plain statement on a new database
	// takes a shared lock and then upgrades it, and SQLite answers a second
	// process doing the same with SQLITE_BUSY at once, without waiting.
	return inTx(ctx, db, func(tx *sql.Tx) error {
		if _, err := tx.ExecContext(ctx, createMigrationsTable); err != nil {
			return fmt.Errorf("create schema_migrations: %w", err)
		}
		for _, m := range ms {
			if err := applyIn(ctx, tx, m, now); err != nil {
				return fmt.Errorf("migration %s: %w", m.name, err)
			}
		}
		return nil
	})
}

// schemaVersion is the highest applied version; it fails on a new database
// (no schema_migrations table), which sends migrate down the slow path.
func schemaVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v sql.NullInt64
	err := db.QueryRowContext(ctx, `SELECT max(version) FROM schema_migrations`).Scan(&v)
	return int(v.Int64), err
}

func inTx(ctx context.Context, db *sql.DB, f func(*sql.Tx) error) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if err := f(tx); err != nil {
		return err
	}
	return tx.Commit()
}

func applyIn(ctx context.Context, tx *sql.Tx, m migration, now func() time.Time) error {
	// Checked inside the (immediate) transaction: another process may have
	// applied it since we looked.
	var n int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM schema_migrations WHERE version = ?`, m.version).Scan(&n); err != nil {
		return err
	}
	if n > 0 {
		return nil
	}
	body, err := m.sql()
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, body); err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO schema_migrations (version, applied_at) VALUES (?, ?)`, m.version, now().UnixNano())
	return err
}
