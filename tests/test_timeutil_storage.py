"""Stored timestamps: the fast reader gives what strptime gives, for every value and every damaged one."""

from __future__ import annotations

from datetime import datetime, timezone

from hypothesis import given
from hypothesis import strategies as st

from engram_core.core.timeutil import EARLIEST, LATEST, from_storage, to_storage


def _by_strptime(text: str) -> datetime | str:
    """The reference reading (the format to_storage writes), or the error it raises."""
    try:
        return datetime.strptime(text, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=timezone.utc)
    except ValueError:
        return "ValueError"


def _read(text: str) -> datetime | str:
    try:
        return from_storage(text)
    except ValueError:
        return "ValueError"


@given(st.datetimes(min_value=EARLIEST.replace(tzinfo=None), max_value=LATEST.replace(tzinfo=None)))
def test_every_stored_moment_reads_back_as_itself(moment: datetime) -> None:
    moment = moment.replace(tzinfo=timezone.utc)
    assert from_storage(to_storage(moment)) == moment == _by_strptime(to_storage(moment))


@given(st.text(alphabet="0123456789-T:.Z", min_size=20, max_size=30))
def test_damaged_text_fails_or_reads_exactly_as_strptime_reads_it(text: str) -> None:
    if "-" in text and 0 < len(text.partition("-")[0]) < 4:
        return  # the unpadded years of older versions: padded first, covered below
    assert _read(text) == _by_strptime(text)


def test_impossible_dates_and_old_unpadded_years() -> None:
    for text in ("2024-13-01T00:00:00.000000Z", "2024-02-30T00:00:00.000000Z", "2024-01-01T24:00:00.000000Z",
                 "2024-01-01T00:00:60.000000Z", "0000-01-01T00:00:00.000000Z"):
        assert _read(text) == "ValueError"
    assert from_storage("999-06-01T00:00:00.000000Z") == datetime(999, 6, 1, tzinfo=timezone.utc)
    assert from_storage("2024-01-01T00:00:00.5Z") == datetime(2024, 1, 1, 0, 0, 0, 500000, tzinfo=timezone.utc)
