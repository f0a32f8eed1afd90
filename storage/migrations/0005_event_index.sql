-- Events are searchable like messages: the same outbox drives their lexical
-- documents (a Bleve index of their own, bleve_events/) and their vectors
-- (vec_events, made for the embedder by the store, with user_id as partition
-- key). Outbox entries of op 'event_index' name events.seq in msg_seq; a
-- 'delete_user' entry clears both lexical indexes.
ALTER TABLE events ADD COLUMN indexed INTEGER NOT NULL DEFAULT 0; -- 1: has a vector

-- Each event's vector, int8-quantised: the similarity of a lexical-only
-- candidate and the rescoring of the binary-code search read it by seq.
CREATE TABLE event_vec_rescore (
	seq   INTEGER PRIMARY KEY,
	scale REAL    NOT NULL,
	v     BLOB    NOT NULL
);

-- Per-user document frequencies of embedder features over events, for the
-- query-side idf of event searches (messages keep theirs in term_df).
CREATE TABLE event_term_df (
	user_id TEXT    NOT NULL,
	term    INTEGER NOT NULL,
	df      INTEGER NOT NULL,
	PRIMARY KEY (user_id, term)
) WITHOUT ROWID;

CREATE TABLE event_stats (
	user_id TEXT PRIMARY KEY,
	indexed INTEGER NOT NULL DEFAULT 0 -- events with a vector
) WITHOUT ROWID;

-- Events stored before this migration are indexed like new ones.
INSERT INTO outbox (op, user_id, msg_seq) SELECT 'event_index', user_id, seq FROM events ORDER BY seq;
