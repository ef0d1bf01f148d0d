-- A provider's reasoning state, block by block and verbatim (JSON array of
-- chat.ReasoningBlock), so a resumed tool loop can send it back. Empty for
-- messages stored before: they keep reasoning and reasoning_signature.
ALTER TABLE messages ADD COLUMN reasoning_blocks_json TEXT NOT NULL DEFAULT '';
