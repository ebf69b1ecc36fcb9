"""When to try a request again: 429 and 503 only, after the server's Retry-After, a bounded number of times."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from email.utils import parsedate_to_datetime

RETRY_STATUSES = frozenset({429, 503})


@dataclass(frozen=True)
class RetryPolicy:
    max_retries: int = 3  # retries after the first attempt
    max_wait_seconds: float = 60.0  # a longer Retry-After is not waited for: the error is raised at once
    backoff_seconds: float = 0.5  # when the server gives no Retry-After: 0.5, 1, 2, ... s

    def wait_before_retry(self, status: int, retry_after: str | None, retries_done: int,
                          now: datetime | None = None) -> float | None:
        """Seconds to wait before the next attempt, or None to give up."""
        if status not in RETRY_STATUSES or retries_done >= self.max_retries:
            return None
        wait = parse_retry_after(retry_after, now)
        if wait is None:
            wait = self.backoff_seconds * (2 ** retries_done)
        return wait if wait <= self.max_wait_seconds else None


def parse_retry_after(value: str | None, now: datetime | None = None) -> float | None:
    """``Retry-After`` as seconds: a number of seconds or an HTTP date; None when absent or unreadable."""
    if not value:
        return None
    text = value.strip()
    if text.isdigit():
        return float(text)
    try:
        when = parsedate_to_datetime(text)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, (when - (now or datetime.now(timezone.utc))).total_seconds())
