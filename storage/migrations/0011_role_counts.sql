-- How many messages each user has of each role: the tools' "considered"
-- of a role-filtered search without a time window (semantic_search with
-- role=user) counted a heavy user's 50k index entries per call (2-4 ms at
-- 100k messages). Triggers keep it, so that every path that inserts or
-- deletes messages does.
CREATE TABLE user_role_stats (
	user_id  TEXT    NOT NULL,
	role     TEXT    NOT NULL,
	messages INTEGER NOT NULL,
	PRIMARY KEY (user_id, role)
) WITHOUT ROWID;

INSERT INTO user_role_stats (user_id, role, messages)
	SELECT user_id, role, count(*) FROM messages GROUP BY user_id, role;

CREATE TRIGGER messages_role_insert AFTER INSERT ON messages BEGIN
	INSERT INTO user_role_stats (user_id, role, messages) VALUES (new.user_id, new.role, 1)
		ON CONFLICT (user_id, role) DO UPDATE SET messages = messages + 1;
END;

CREATE TRIGGER messages_role_delete AFTER DELETE ON messages BEGIN
	UPDATE user_role_stats SET messages = messages - 1 WHERE user_id = old.user_id AND role = old.role;
END;

CREATE TRIGGER messages_role_update AFTER UPDATE OF user_id, role ON messages BEGIN
	UPDATE user_role_stats SET messages = messages - 1 WHERE user_id = old.user_id AND role = old.role;
	INSERT INTO user_role_stats (user_id, role, messages) VALUES (new.user_id, new.role, 1)
		ON CONFLICT (user_id, role) DO UPDATE SET messages = messages + 1;
END;
