-- Engram schema v2: metered model calls, stored with the use case that caused them.
CREATE TABLE model_usage (
    id                TEXT PRIMARY KEY,
    at                TEXT NOT NULL,
    turn_id           TEXT,
    purpose           TEXT NOT NULL,
    model             TEXT NOT NULL,
    prompt_tokens     INTEGER NOT NULL DEFAULT 0,
    completion_tokens INTEGER NOT NULL DEFAULT 0,
    reasoning_tokens  INTEGER NOT NULL DEFAULT 0,
    latency_ms        REAL NOT NULL DEFAULT 0,
    attempts          INTEGER NOT NULL DEFAULT 1,
    outcome           TEXT NOT NULL,
    cost_usd          REAL NOT NULL DEFAULT 0
);
CREATE INDEX model_usage_turn ON model_usage (turn_id);
