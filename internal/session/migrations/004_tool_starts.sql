-- The tool calls that started and have no result stored yet: after a crash
-- the model is told such a call started and its outcome is unknown, not
-- that it never ran. A row goes when the call's result is stored.
CREATE TABLE tool_starts (
    session_id TEXT NOT NULL,
    call_id    TEXT NOT NULL,
    started_at INTEGER NOT NULL,
    PRIMARY KEY (session_id, call_id)
);
