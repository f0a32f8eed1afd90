-- Messages are the source of truth; seq is the rowid shared with the vector
-- table and the Bleve document id.
CREATE TABLE messages (
	seq             INTEGER PRIMARY KEY,
	user_id         TEXT    NOT NULL,
	id              TEXT    NOT NULL,
	conversation_id TEXT    NOT NULL DEFAULT '',
	group_id        TEXT    NOT NULL DEFAULT '',
	role            TEXT    NOT NULL,
	sender_id       TEXT    NOT NULL DEFAULT '',
	sender_name     TEXT    NOT NULL DEFAULT '',
	content         TEXT    NOT NULL,
	created_at      TEXT    NOT NULL,
	created_ms      INTEGER NOT NULL,
	meta            TEXT    NOT NULL DEFAULT '{}',
	indexed         INTEGER NOT NULL DEFAULT 0,
	ingested_ms     INTEGER NOT NULL,
	UNIQUE (user_id, id)
);
CREATE INDEX messages_user_time ON messages (user_id, created_ms, seq);
CREATE INDEX messages_user_conv_time ON messages (user_id, conversation_id, created_ms, seq);

-- The outbox drives the derived indexes; a restart resumes it.
CREATE TABLE outbox (
	seq     INTEGER PRIMARY KEY AUTOINCREMENT,
	op      TEXT    NOT NULL, -- index | delete | delete_user
	user_id TEXT    NOT NULL,
	msg_seq INTEGER NOT NULL DEFAULT 0
);

-- Per-user document frequencies of embedder features, for query-side idf.
CREATE TABLE term_df (
	user_id TEXT    NOT NULL,
	term    INTEGER NOT NULL,
	df      INTEGER NOT NULL,
	PRIMARY KEY (user_id, term)
) WITHOUT ROWID;

CREATE TABLE user_stats (
	user_id  TEXT PRIMARY KEY,
	messages INTEGER NOT NULL DEFAULT 0, -- stored messages
	indexed  INTEGER NOT NULL DEFAULT 0  -- messages with a vector
) WITHOUT ROWID;

CREATE TABLE meta (
	key   TEXT PRIMARY KEY,
	value TEXT NOT NULL
) WITHOUT ROWID;
