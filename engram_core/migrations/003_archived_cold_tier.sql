-- Engram schema v3: archived memories join the cold tier (a strong cue can wake them).
-- Until now an archived episode was out of reach, so a belief superseded after the
-- episode was archived left it alone. Such an episode must never wake as a current
-- value: it is superseded now, as it would have been had it still been recallable.
UPDATE memories SET status = 'superseded'
WHERE status = 'archived' AND kind = 'episode'
  AND id IN (SELECT s.memory_id FROM memory_sources s
             JOIN beliefs b ON b.source_message_id = s.message_id
             WHERE b.superseded_by IS NOT NULL);
