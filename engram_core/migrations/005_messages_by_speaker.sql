-- Engram schema v5: a speaker's previous message, found without a scan ("she quit violin" names
-- nobody; the message before it says whom "she" means).
CREATE INDEX IF NOT EXISTS messages_said ON messages (role, occurred_at);
