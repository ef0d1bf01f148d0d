-- Images sent with messages, each stored once under its SHA-256 whatever
-- the number of messages (and sessions) that name it; a message keeps
-- only their descriptions (images_json: chat.Image without the bytes).
CREATE TABLE images (
    sha256     TEXT    PRIMARY KEY,
    media_type TEXT    NOT NULL,
    data       BLOB    NOT NULL,
    created_at INTEGER NOT NULL
);
ALTER TABLE messages ADD COLUMN images_json TEXT NOT NULL DEFAULT '';
-- On the user message that opened a turn: the turn's number (/rewind).
ALTER TABLE messages ADD COLUMN turn INTEGER NOT NULL DEFAULT 0;
