"""The time a question names (pure): "in July 2023", "on 13 October, 2023", "in 2022", "in June".

Recall prefers memories recorded in that window: a question about "the setback in October 2023"
asks about turns said then (or a little after: people tell of an event in the next days).
"""

from __future__ import annotations

import re
from calendar import monthrange
from datetime import datetime, timedelta

_MONTHS = {name: i + 1 for i, name in enumerate(
    "january february march april may june july august september october november december".split())}
_MONTH = r"(january|february|march|april|may|june|july|august|september|october|november|december)"
_DAY_MONTH_YEAR = re.compile(rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+{_MONTH},?\s+(\d{{4}})\b", re.I)
_MONTH_DAY_YEAR = re.compile(rf"\b{_MONTH}\s+(\d{{1,2}})(?:st|nd|rd|th)?,?\s+(\d{{4}})\b", re.I)
_MONTH_YEAR = re.compile(rf"\b{_MONTH},?\s+(\d{{4}})\b", re.I)
_IN_MONTH = re.compile(rf"\b(?:in|during)\s+{_MONTH}\b(?!\s+\d)", re.I)  # "in May", not "may" the verb
_IN_YEAR = re.compile(r"\b(?:in|during)\s+((?:19|20)\d\d)\b", re.I)
TOLD_WITHIN = timedelta(days=10)  # an event is often told of in the days after it


def _day(year: int, month: int, day: int) -> tuple[datetime, datetime] | None:
    if not 1 <= day <= monthrange(year, month)[1]:
        return None
    start = datetime(year, month, day)
    return start, start + timedelta(days=1)


def _month(year: int, month: int) -> tuple[datetime, datetime]:
    start = datetime(year, month, 1)
    return start, start + timedelta(days=monthrange(year, month)[1])


def named_window(query: str, now: datetime) -> tuple[datetime, datetime] | None:
    """The naive UTC window [start, end) the query names, the most precise form first; None if none."""
    if m := _DAY_MONTH_YEAR.search(query):
        return _day(int(m.group(3)), _MONTHS[m.group(2).lower()], int(m.group(1)))
    if m := _MONTH_DAY_YEAR.search(query):
        return _day(int(m.group(3)), _MONTHS[m.group(1).lower()], int(m.group(2)))
    if m := _MONTH_YEAR.search(query):
        return _month(int(m.group(2)), _MONTHS[m.group(1).lower()])
    if m := _IN_YEAR.search(query):
        year = int(m.group(1))
        return datetime(year, 1, 1), datetime(year + 1, 1, 1)
    if m := _IN_MONTH.search(query):
        month = _MONTHS[m.group(1).lower()]
        year = now.year if month <= now.month else now.year - 1  # the latest such month, not a future one
        return _month(year, month)
    return None
