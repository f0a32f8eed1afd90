-- The historian's durable queue. A job is acknowledged once its INSERT
-- commits; each transition (pending → processing → done | failed, and back to
-- pending on a retry or an expired lease) is one UPDATE in a write transaction.
CREATE TABLE jobs (
	id           TEXT    PRIMARY KEY,                 -- ULID
	user_id      TEXT    NOT NULL,
	kind         TEXT    NOT NULL,
	dedup_key    TEXT    NOT NULL DEFAULT '',         -- the bot's request id; '' = no deduplication
	payload      TEXT    NOT NULL,                    -- JSON object
	state        TEXT    NOT NULL CHECK (state IN ('pending', 'processing', 'done', 'failed')),
	attempts     INTEGER NOT NULL DEFAULT 0,          -- claims so far
	error        TEXT    NOT NULL DEFAULT '',         -- the last failure
	created_ms   INTEGER NOT NULL,
	updated_ms   INTEGER NOT NULL,
	run_after_ms INTEGER NOT NULL DEFAULT 0,          -- pending: not claimed before (retry backoff)
	lease_ms     INTEGER NOT NULL DEFAULT 0           -- processing: the claim expires at this time
);
-- Re-sending a turn with the same request id finds the job already queued.
CREATE UNIQUE INDEX jobs_dedup ON jobs (user_id, kind, dedup_key) WHERE dedup_key != '';
-- Claim (oldest pending of a kind), stale recovery and purges by state.
CREATE INDEX jobs_state_kind_created ON jobs (state, kind, created_ms, id);
-- A user's jobs by state (GET /jobs).
CREATE INDEX jobs_user_state_created ON jobs (user_id, state, created_ms);
