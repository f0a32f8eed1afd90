-- Events are observations the historian rewrote to absolute form (no
-- pronouns, no relative times), one row per observation and perspective.
-- The id is derived from the job, so replaying a job stores nothing twice.
CREATE TABLE events (
	seq             INTEGER PRIMARY KEY,
	id              TEXT    NOT NULL UNIQUE,          -- job id : observation index : perspective
	user_id         TEXT    NOT NULL,
	group_id        TEXT    NOT NULL DEFAULT '',
	sender_id       TEXT    NOT NULL DEFAULT '',
	sender_name     TEXT    NOT NULL DEFAULT '',
	job_id          TEXT    NOT NULL,
	perspective     TEXT    NOT NULL CHECK (perspective IN ('group', 'sender', 'global')),
	request_type    TEXT    NOT NULL CHECK (request_type IN ('private', 'group')),
	content         TEXT    NOT NULL,                 -- the absolute form
	original        TEXT    NOT NULL,                 -- the observation as the bot wrote it
	is_absolute     INTEGER NOT NULL,
	warning         TEXT    NOT NULL DEFAULT '',
	timestamp_utc   TEXT    NOT NULL,                 -- RFC 3339, UTC
	timestamp_local TEXT    NOT NULL,                 -- RFC 3339 in the historian's time zone
	timestamp_epoch INTEGER NOT NULL,                 -- seconds
	source_message  TEXT    NOT NULL DEFAULT '',
	schema_version  INTEGER NOT NULL,
	created_ms      INTEGER NOT NULL
);
CREATE INDEX events_user_time ON events (user_id, timestamp_epoch, seq);
CREATE INDEX events_user_group_time ON events (user_id, group_id, timestamp_epoch, seq);
CREATE INDEX events_job ON events (job_id);
