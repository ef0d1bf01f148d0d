-- Times are INTEGER nanoseconds since the Unix epoch (UTC): they sort, compare
-- and round-trip exactly, with no text-format parsing on load.

CREATE TABLE sessions (
    id                 TEXT    PRIMARY KEY,
    workspace          TEXT    NOT NULL DEFAULT '',
    title              TEXT    NOT NULL DEFAULT '',
    created_at         INTEGER NOT NULL,
    updated_at         INTEGER NOT NULL,
    model              TEXT    NOT NULL DEFAULT '',
    mode               TEXT    NOT NULL DEFAULT '',
    generation         INTEGER NOT NULL DEFAULT 0,
    input_tokens       INTEGER NOT NULL DEFAULT 0,
    output_tokens      INTEGER NOT NULL DEFAULT 0,
    cache_read_tokens  INTEGER NOT NULL DEFAULT 0,
    cache_write_tokens INTEGER NOT NULL DEFAULT 0,
    -- Kept in step with the messages rows so listing needs no COUNT(*).
    message_count      INTEGER NOT NULL DEFAULT 0
);

-- Listing and --continue: newest sessions of one workspace.
CREATE INDEX sessions_workspace_updated ON sessions (workspace, updated_at DESC, id DESC);

CREATE TABLE messages (
    session_id          TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    seq                 INTEGER NOT NULL,
    role                TEXT    NOT NULL,
    content             TEXT    NOT NULL DEFAULT '',
    reasoning           TEXT    NOT NULL DEFAULT '',
    reasoning_signature TEXT    NOT NULL DEFAULT '',
    tool_calls_json     TEXT    NOT NULL DEFAULT '',
    tool_call_id        TEXT    NOT NULL DEFAULT '',
    tool_name           TEXT    NOT NULL DEFAULT '',
    is_error            INTEGER NOT NULL DEFAULT 0,
    interrupted         INTEGER NOT NULL DEFAULT 0,
    created_at          INTEGER NOT NULL,
    PRIMARY KEY (session_id, seq)
);

CREATE TABLE todos (
    session_id TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    id         TEXT    NOT NULL,
    content    TEXT    NOT NULL,
    status     TEXT    NOT NULL,
    position   INTEGER NOT NULL,
    PRIMARY KEY (session_id, position)
);

-- One row per model call; (run_id, model_call) is the idempotency key of seed 03,
-- so a retried call overwrites its row instead of counting twice.
CREATE TABLE usage (
    session_id  TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    model_call  INTEGER NOT NULL,
    run_id      TEXT    NOT NULL,
    model       TEXT    NOT NULL DEFAULT '',
    input       INTEGER NOT NULL DEFAULT 0,
    output      INTEGER NOT NULL DEFAULT 0,
    cache_read  INTEGER NOT NULL DEFAULT 0,
    cache_write INTEGER NOT NULL DEFAULT 0,
    at          INTEGER NOT NULL,
    PRIMARY KEY (session_id, run_id, model_call)
);

-- §14.3 undo: a file's content before a turn's first write to it.
-- existed = 0 means the file did not exist (undo deletes it).
CREATE TABLE undo_snapshots (
    session_id  TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    turn        INTEGER NOT NULL,
    path        TEXT    NOT NULL,
    existed     INTEGER NOT NULL,
    mode        INTEGER NOT NULL DEFAULT 0,
    content     BLOB,
    captured_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, turn, path)
);
