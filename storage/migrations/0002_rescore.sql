-- Each message's vector, int8-quantised, for rescoring the candidates of the
-- binary-code search. A point lookup in vec0 reads a whole chunk; this table
-- answers "seq IN (...)" from its primary key.
CREATE TABLE vec_rescore (
    seq INTEGER PRIMARY KEY,
    scale REAL NOT NULL,
    v BLOB NOT NULL
);

-- Counting a user's messages of one role (the tools' "considered") without
-- reading rows.
CREATE INDEX messages_user_role_time ON messages (user_id, role, created_ms);
