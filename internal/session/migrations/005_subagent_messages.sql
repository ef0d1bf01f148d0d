-- Version 005: 004 is tool_starts.
-- A subagent's own history (the task tool's explore/general runs): its
-- tool calls and results, tagged with the parent's task call and the kind.
-- Kept apart from messages: the parent model never sees them, only the
-- subagent's answer, which is the task call's result in messages.
CREATE TABLE subagent_messages (
    session_id   TEXT    NOT NULL REFERENCES sessions (id) ON DELETE CASCADE,
    run_id       TEXT    NOT NULL,
    seq          INTEGER NOT NULL,
    task_call_id TEXT    NOT NULL DEFAULT '',
    agent        TEXT    NOT NULL DEFAULT '',
    subagent     TEXT    NOT NULL DEFAULT '',
    started_at   INTEGER NOT NULL,
    role         TEXT    NOT NULL,
    tool_name    TEXT    NOT NULL DEFAULT '',
    message_json TEXT    NOT NULL,
    PRIMARY KEY (session_id, run_id, seq)
);
