-- Engram schema v3: archived memories join the cold tier (a strong cue can wake them).
-- Until now an archived episode was out of reach, so a belief superseded after the
-- episode was archived left it alone, and the gist that summarised it kept stating the
-- old value. Neither may surface as current: both are superseded now, as a recallable
-- episode always was when its belief changed.
UPDATE memories SET status = 'superseded'
WHERE kind IN ('episode', 'gist') AND status IN ('active', 'decayed', 'archived')
  AND id IN (SELECT s.memory_id FROM memory_sources s
             JOIN beliefs b ON b.source_message_id = s.message_id
             WHERE b.superseded_by IS NOT NULL)
  AND (kind = 'gist' OR status = 'archived');
