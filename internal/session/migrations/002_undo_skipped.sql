-- §14.3 undo: why a file's prior content was not captured (too large, not a
-- regular file, unreadable). Empty when it was: only then can undo restore it.
ALTER TABLE undo_snapshots ADD COLUMN skipped TEXT NOT NULL DEFAULT '';
