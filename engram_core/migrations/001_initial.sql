-- Engram schema v1: one database per tenant.
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE messages (
    id          TEXT PRIMARY KEY,
    role        TEXT NOT NULL,
    session_id  TEXT NOT NULL,
    text        TEXT NOT NULL,
    occurred_at TEXT NOT NULL,
    recorded_at TEXT NOT NULL,
    external_id TEXT UNIQUE,
    speaker     TEXT
);
CREATE INDEX messages_session ON messages (session_id, occurred_at);

CREATE TABLE memories (
    id                TEXT PRIMARY KEY,
    kind              TEXT NOT NULL,
    text              TEXT NOT NULL,
    importance        REAL NOT NULL,
    stability_hours   REAL NOT NULL,
    created_at        TEXT NOT NULL,
    last_accessed_at  TEXT NOT NULL,
    access_count      INTEGER NOT NULL DEFAULT 0,
    status            TEXT NOT NULL,
    status_changed_at TEXT,
    provenance        TEXT NOT NULL DEFAULT '[]',
    session_id        TEXT,
    subject           TEXT,
    belief_id         TEXT,
    superseded_by     TEXT,
    critical          INTEGER NOT NULL DEFAULT 0,
    embedding         BLOB,
    embed_model       TEXT,
    embed_dim         INTEGER
);
CREATE INDEX memories_status ON memories (status, kind);
CREATE INDEX memories_session ON memories (session_id);

-- Reverse provenance: which memories came from a message.
CREATE TABLE memory_sources (
    memory_id  TEXT NOT NULL REFERENCES memories (id) ON DELETE CASCADE,
    message_id TEXT NOT NULL,
    PRIMARY KEY (memory_id, message_id)
);
CREATE INDEX memory_sources_message ON memory_sources (message_id);

CREATE VIRTUAL TABLE memories_fts USING fts5 (
    text, content = 'memories', content_rowid = 'rowid', tokenize = 'porter unicode61'
);
CREATE TRIGGER memories_fts_insert AFTER INSERT ON memories BEGIN
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;
CREATE TRIGGER memories_fts_delete AFTER DELETE ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
END;
CREATE TRIGGER memories_fts_update AFTER UPDATE OF text ON memories BEGIN
    INSERT INTO memories_fts (memories_fts, rowid, text) VALUES ('delete', old.rowid, old.text);
    INSERT INTO memories_fts (rowid, text) VALUES (new.rowid, new.text);
END;

CREATE TABLE beliefs (
    id                TEXT PRIMARY KEY,
    subject           TEXT NOT NULL,
    predicate         TEXT NOT NULL,
    object            TEXT NOT NULL,
    statement         TEXT NOT NULL,
    cardinality       TEXT NOT NULL,
    valid_from        TEXT NOT NULL,
    valid_to          TEXT,
    recorded_at       TEXT NOT NULL,
    expired_at        TEXT,
    superseded_by     TEXT,
    source_message_id TEXT,
    memory_id         TEXT
);
CREATE INDEX beliefs_subject ON beliefs (subject, predicate, valid_to, expired_at);
CREATE INDEX beliefs_source ON beliefs (source_message_id);

CREATE TABLE events (
    seq        INTEGER PRIMARY KEY AUTOINCREMENT,
    id         TEXT NOT NULL UNIQUE,
    at         TEXT NOT NULL,
    kind       TEXT NOT NULL,
    memory_id  TEXT,
    belief_id  TEXT,
    message_id TEXT,
    detail     TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX events_at ON events (at);

CREATE TABLE dream_proposals (
    id         TEXT PRIMARY KEY,
    created_at TEXT NOT NULL,
    actions    TEXT NOT NULL,
    rejected   TEXT NOT NULL DEFAULT '[]',
    applied_at TEXT
);
