"""Time values: storage format, caller-given dates and durations (pure)."""

from __future__ import annotations

import math
import re
from datetime import datetime, timedelta, timezone

from engram_core.core.errors import ValidationError

_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w|y)?\s*$", re.IGNORECASE)
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 7 * 86400, "y": 365 * 86400}
MAX_DURATION = timedelta(days=100 * 365)  # far beyond any decay horizon, far inside datetime's range


# Every timestamp a caller gives must lie in this range (UTC): four-digit years, and centuries of room
# above for the clock offset and any duration added to it, far inside what ``datetime`` can hold.
EARLIEST = datetime(1000, 1, 1, tzinfo=timezone.utc)
LATEST = datetime(8999, 12, 31, 23, 59, 59, 999999, tzinfo=timezone.utc)


def to_storage(moment: datetime) -> str:
    """Fixed-width UTC text, so string order is time order (the year zero-padded: strftime does not)."""
    utc = moment.astimezone(timezone.utc)
    return f"{utc.year:04d}" + utc.strftime("-%m-%dT%H:%M:%S.%fZ")


# What to_storage writes. Read by slicing: strptime costs about 10 us a call, and a cold store's first
# recall reads two timestamps of every active memory.
_STORED = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


def from_storage(text: str) -> datetime:
    """Also reads the unpadded years below 1000 that older versions wrote ('999-06-01T...')."""
    if _STORED.fullmatch(text):
        return datetime(int(text[0:4]), int(text[5:7]), int(text[8:10]), int(text[11:13]), int(text[14:16]),
                        int(text[17:19]), int(text[20:26]), tzinfo=timezone.utc)
    year, dash, rest = text.partition("-")
    if dash and 0 < len(year) < 4 and year.isdigit():
        text = year.zfill(4) + dash + rest
    return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)


def maybe_from_storage(text: str | None) -> datetime | None:
    return from_storage(text) if text else None


def parse_when(value: str | datetime, field: str) -> datetime:
    """An ISO-8601 date or datetime from a caller; naive values are taken as UTC."""
    if isinstance(value, datetime):
        moment = value
    else:
        try:
            moment = datetime.fromisoformat(str(value).strip().replace("Z", "+00:00"))
        except ValueError as exc:
            raise ValidationError(f"{field}: not an ISO-8601 date or time: {value!r}", field=field) from exc
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=timezone.utc)
    try:
        return check_in_range(moment.astimezone(timezone.utc), field)
    except OverflowError as exc:  # e.g. 9999-12-31T23:59-23:00 lies past the last representable UTC time
        raise ValidationError(f"{field}: out of the representable range: {value!r}", field=field) from exc


def check_in_range(moment: datetime, field: str) -> datetime:
    """A timestamp from outside (a caller, an import, an event) must lie between EARLIEST and LATEST."""
    if not EARLIEST <= moment <= LATEST:
        raise ValidationError(f"{field}: {moment.isoformat()} is outside the supported range "
                              f"{EARLIEST.date().isoformat()} to {LATEST.date().isoformat()} (UTC)", field=field)
    return moment


def stored_offset(text: str | None) -> timedelta:
    """A store's clock offset: never negative and never past MAX_DURATION, whatever the meta value says."""
    try:
        seconds = float(text or 0)
    except ValueError:
        seconds = 0.0
    if not math.isfinite(seconds):
        seconds = 0.0 if math.isnan(seconds) or seconds < 0 else MAX_DURATION.total_seconds()
    return timedelta(seconds=min(max(seconds, 0.0), MAX_DURATION.total_seconds()))


def parse_duration(value: str, field: str = "duration") -> timedelta:
    """'90m', '36h', '3d', '3w', '1y' (a bare number means hours)."""
    match = _DURATION.match(value or "")
    if not match:
        raise ValidationError(f"{field}: expected a duration like 36h, 3d or 3w, got {value!r}", field=field)
    seconds = float(match.group(1)) * _UNIT_SECONDS[(match.group(2) or "h").lower()]
    if seconds > MAX_DURATION.total_seconds():
        raise ValidationError(f"{field}: at most {MAX_DURATION.days // 365} years, got {value!r}", field=field)
    return timedelta(seconds=seconds)
