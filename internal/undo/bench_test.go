package undo

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkScanBeforeAfter10k is the cost a bash call pays for capture in a
// workspace of 10,000 small files when nothing changed: two stat-only walks.
func BenchmarkScanBeforeAfter10k(b *testing.B) {
	ws := b.TempDir()
	writeTree(b, ws, fileCount(10_000))
	age(b, ws) // as in a real workspace; fresh files are all racy
	st, id := openStore(b, ws)
	sc := NewScanner(ws, ScannerOptions{})
	turn := NewTurn(st, id, 1, ws)
	ctx := context.Background()
	if _, err := sc.Before(ctx); err != nil { // the first Before reads every file
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		m, err := sc.Before(ctx)
		if err != nil {
			b.Fatal(err)
		}
		changed, _, err := sc.After(ctx, m, turn)
		if err != nil || len(changed) != 0 {
			b.Fatal(changed, err)
		}
	}
}

// BenchmarkScanFirstBefore10k is the first Before of a session, which reads
// all 10,000 files into the cache.
func BenchmarkScanFirstBefore10k(b *testing.B) {
	ws := b.TempDir()
	writeTree(b, ws, fileCount(10_000))
	ctx := context.Background()
	for b.Loop() {
		if _, err := NewScanner(ws, ScannerOptions{}).Before(ctx); err != nil {
			b.Fatal(err)
		}
	}
}

// age sets every file's mtime an hour back.
func age(b *testing.B, root string) {
	old := time.Now().Add(-time.Hour)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			err = os.Chtimes(p, old, old)
		}
		return err
	})
	if err != nil {
		b.Fatal(err)
	}
}
