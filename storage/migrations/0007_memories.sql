-- Memos are the short notes a bot leaves when it ends a turn ("what this
-- turn was about"). A memo is written in the same transaction as the turn's
-- job, so it is visible as soon as /turns/end answers, and a replayed request
-- id stores nothing twice.
CREATE TABLE memos (
	seq             INTEGER PRIMARY KEY,
	id              TEXT    NOT NULL UNIQUE,          -- the id of the job it came with, or its own (ULID)
	user_id         TEXT    NOT NULL,
	request_id      TEXT    NOT NULL DEFAULT '',      -- the bot's request id; '' = none
	job_id          TEXT    NOT NULL DEFAULT '',      -- '' = stored without a job (an import)
	group_id        TEXT    NOT NULL DEFAULT '',
	group_name      TEXT    NOT NULL DEFAULT '',
	sender_id       TEXT    NOT NULL DEFAULT '',
	sender_name     TEXT    NOT NULL DEFAULT '',
	request_type    TEXT    NOT NULL CHECK (request_type IN ('private', 'group')),
	content         TEXT    NOT NULL,
	timestamp_utc   TEXT    NOT NULL,                 -- when the turn happened, RFC 3339 UTC
	timestamp_epoch INTEGER NOT NULL,                 -- the same, in seconds
	created_ms      INTEGER NOT NULL
);
CREATE UNIQUE INDEX memos_request ON memos (user_id, request_id) WHERE request_id != '';
CREATE INDEX memos_user_time ON memos (user_id, timestamp_epoch, seq);
CREATE INDEX memos_user_group_time ON memos (user_id, group_id, timestamp_epoch, seq);
CREATE INDEX memos_user_sender_time ON memos (user_id, sender_id, timestamp_epoch, seq);

-- Pinned memories: a few high-value facts per user that are always put in
-- front of the bot. Ids are ULIDs or chosen by the client (idempotent
-- create); they are unique per user.
CREATE TABLE memories (
	seq        INTEGER PRIMARY KEY,
	id         TEXT    NOT NULL,
	user_id    TEXT    NOT NULL,
	group_id   TEXT    NOT NULL DEFAULT '',           -- '' = applies everywhere
	content    TEXT    NOT NULL,
	tags       TEXT    NOT NULL DEFAULT '[]',         -- JSON array of strings
	created_ms INTEGER NOT NULL,
	updated_ms INTEGER NOT NULL,
	UNIQUE (user_id, id)
);
CREATE INDEX memories_user_group ON memories (user_id, group_id, created_ms, seq);
