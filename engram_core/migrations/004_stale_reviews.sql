-- Engram schema v4: memories that may be stale because a belief they depend on was superseded
-- ("my dentist in Lisbon" after a move to Madrid). They are demoted in recall and listed in the
-- next dream proposal, for the person to confirm or forget; the memory itself is not changed.
CREATE TABLE IF NOT EXISTS stale_reviews (
    memory_id   TEXT PRIMARY KEY REFERENCES memories(id) ON DELETE CASCADE,
    belief_id   TEXT NOT NULL,  -- the superseded belief the memory depends on
    reason      TEXT NOT NULL,
    flagged_at  TEXT NOT NULL,
    resolved_at TEXT            -- confirmed or forgotten: no longer demoted
);
CREATE INDEX IF NOT EXISTS stale_reviews_open ON stale_reviews (resolved_at);
