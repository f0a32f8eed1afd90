-- Users whose vectors moved from a vector table with small chunks
-- (vec_messages, vec_events: 8 slots, so that a light user costs kilobytes)
-- to its twin with large chunks (vec_messages_big, vec_events_big), where a
-- heavy user's KNN reads a hundred chunks instead of twelve thousand. See
-- storage/vec_tiers.go.
CREATE TABLE vec_big_users (
	vec     TEXT NOT NULL, -- the small table's name
	user_id TEXT NOT NULL,
	PRIMARY KEY (vec, user_id)
) WITHOUT ROWID;
