-- Issue 24 item 7: the state a path was left in by coder's own last change
-- in the turn (a fingerprint: absent, dir, a link's target or a file's
-- mode and content hash), or 'outside' once it changed between coder's
-- calls. /undo restores a path only while it still is as coder left it:
-- what the person changed meanwhile is left and named. Empty: unknown
-- (older rows, a call cut short), restored as before.
ALTER TABLE undo_snapshots ADD COLUMN after_state TEXT NOT NULL DEFAULT '';
