-- /rewind: the state each path a turn changed was left in when the turn
-- ended (undo.StateOf: absent, a directory, a link's target, a file's mode
-- and SHA-256), so a rewind can tell the files a person changed since and
-- leave them. Rows go with their turn's snapshot.
CREATE TABLE undo_after (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn       INTEGER NOT NULL,
    path       TEXT    NOT NULL,
    state      TEXT    NOT NULL,
    PRIMARY KEY (session_id, turn, path)
);
