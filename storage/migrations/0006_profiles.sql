-- Profiles are what the historian keeps current about the people and groups a
-- user's bot talks to: one row per (memory owner, entity type, entity id).
-- Traits and tags are JSON arrays; revision counts every change.
CREATE TABLE profiles (
	seq         INTEGER PRIMARY KEY AUTOINCREMENT,   -- the Bleve document id and vector rowid (never reused)
	user_id     TEXT    NOT NULL,                    -- the memory owner (trusted)
	entity_type TEXT    NOT NULL CHECK (entity_type IN ('user', 'group')),
	entity_id   TEXT    NOT NULL,                    -- sender id or group id
	name        TEXT    NOT NULL DEFAULT '',
	tags        TEXT    NOT NULL DEFAULT '[]',
	traits      TEXT    NOT NULL DEFAULT '[]',
	summary     TEXT    NOT NULL DEFAULT '',
	revision    INTEGER NOT NULL,
	updated_ms  INTEGER NOT NULL,
	indexed_rev INTEGER NOT NULL DEFAULT 0,          -- the revision the search indexes hold
	UNIQUE (user_id, entity_type, entity_id)
);
-- Profiles whose search entries are behind.
CREATE INDEX profiles_user_dirty ON profiles (user_id, indexed_rev, revision);

-- Every change of a profile, as the state it produced; the newest few are kept.
CREATE TABLE profile_revisions (
	user_id     TEXT    NOT NULL,
	entity_type TEXT    NOT NULL,
	entity_id   TEXT    NOT NULL,
	revision    INTEGER NOT NULL,
	snapshot    TEXT    NOT NULL,                    -- JSON: name, tags, traits, summary
	source      TEXT    NOT NULL,                    -- job:<id> | restore:<revision>
	created_ms  INTEGER NOT NULL,
	PRIMARY KEY (user_id, entity_type, entity_id, revision)
) WITHOUT ROWID;
