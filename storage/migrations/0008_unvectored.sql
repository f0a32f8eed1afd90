-- Messages without a vector (indexed = 0) are found by the vector catch-up:
-- when the embedder fails, a message is indexed lexically at once and gets
-- its vector once the embedder answers again. The partial index keeps that
-- look-up (and the count /healthz shows) proportional to the backlog.
CREATE INDEX messages_unvectored ON messages (seq) WHERE indexed = 0;
CREATE INDEX events_unvectored ON events (seq) WHERE indexed = 0;
