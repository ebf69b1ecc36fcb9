"""The recall index's per-memory values: built all at once, or read from the store when first asked for.

A loaded index (``ActiveIndex.load``) starts from columns alone and reads a memory's entry (the
memory, the belief it states, its rendered lines) the first time recall needs it as a candidate:
a 100,000-memory tenant's first recall reads a few hundred rows, not 100,000, and the index holds
Python objects only for the memories recall has used (a full garbage collection walks those alone).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from engram_core.core.errors import StoreError
from engram_core.core.model import Belief, Cardinality, Memory
from engram_core.core.render import BlockForm
from engram_core.core.restatements import states_a_change

EntryFetch = Callable[[Sequence[str]], list[tuple[Memory, Belief | None]]]


def veto_key(belief: Belief | None) -> str | None:
    if belief is None or belief.cardinality is not Cardinality.ONE:
        return None
    return f"{belief.subject}\x1f{belief.predicate}"


@dataclass
class IndexEntry:
    memory: Memory
    veto_key: str | None
    valid_from: datetime
    belief: Belief | None = None  # the current belief the memory states, if any
    # Per block form, the rendered line and what it costs, kept while rendering gives the same
    # line: counting 400 candidates' tokens on every recall was a quarter of recall time
    # (docs/benchmarks.md, section 4). ``stale`` forms are re-rendered and recounted only if changed.
    rendered: dict[BlockForm, tuple[str, int]] = field(default_factory=dict)
    stale: set[BlockForm] = field(default_factory=set)

    @property
    def text_key(self) -> str:
        """The text as a repeat is recognised: case and spacing aside (kept until the text changes)."""
        if self._key_of != self.memory.text:
            self._key, self._key_of = " ".join(self.memory.text.lower().split()), self.memory.text
        return self._key

    _key: str = field(default="", repr=False)
    _key_of: str | None = field(default=None, repr=False)

    @property
    def states_a_change(self) -> bool:
        """Whether the text carries a change cue (``restatements``), kept until the text changes: three
        regular expressions over 400 candidates were 3.5 ms of every recall (docs/benchmarks.md, section 4)."""
        if self._change_of != self.memory.text:
            self._change, self._change_of = states_a_change(self.memory), self.memory.text
        return self._change

    _change: bool = field(default=False, repr=False)
    _change_of: str | None = field(default=None, repr=False)

    def line_and_tokens(self, form: BlockForm, render: Callable[[IndexEntry], str],
                        count: Callable[[str], int]) -> tuple[str, int]:
        """``render(entry)`` and ``count(line)`` for one form, recounted only when the line changes."""
        cached = self.rendered.get(form)
        if cached is not None and form not in self.stale:
            return cached
        line = render(self)
        if cached is None or cached[0] != line:
            cached = self.rendered[form] = (line, count(line))
        self.stale.discard(form)
        return cached


def entry_of(memory: Memory, belief: Belief | None) -> IndexEntry:
    return IndexEntry(memory, veto_key(belief), belief.valid_from if belief else memory.created_at, belief)


class IndexEntries:
    """The entries by row. A loaded index reads one from the store (``fetch``, by memory id) the first
    time it is asked for and keeps it; a built index holds them all from the start."""

    def __init__(self, fetch: EntryFetch | None = None, ids: Sequence[str] = ()) -> None:
        self._fetch = fetch
        self._ids = list(ids)
        self._entries: list[IndexEntry | None] = [None] * len(self._ids)

    def __len__(self) -> int:
        return len(self._entries)

    def __getitem__(self, pos: int) -> IndexEntry:
        entry = self._entries[pos]
        if entry is None:
            self.prefetch((pos,))
            entry = self._entries[pos]
            assert entry is not None
        return entry

    def __iter__(self) -> Iterator[IndexEntry]:
        self.prefetch(range(len(self._entries)))
        return iter([self[pos] for pos in range(len(self._entries))])

    def append(self, entry: IndexEntry) -> None:
        self._ids.append(entry.memory.id)
        self._entries.append(entry)

    def read_so_far(self) -> int:
        """How many entries are held (a loaded index starts with none)."""
        return sum(entry is not None for entry in self._entries)

    def prefetch(self, positions: Sequence[int] | range | np.ndarray) -> None:
        """Read the entries of these rows not held yet, in one request to the store."""
        missing = [pos for pos in dict.fromkeys(int(p) for p in positions) if self._entries[pos] is None]
        if not missing:
            return
        if self._fetch is None:
            raise StoreError("the recall index has no entry for a row it was built with")
        found = {memory.id: (memory, belief) for memory, belief in self._fetch([self._ids[p] for p in missing])}
        for pos in missing:
            row = found.get(self._ids[pos])
            if row is None:
                raise StoreError(f"memory {self._ids[pos]} left the store while the recall index held it; "
                                 "retry the request")
            self._entries[pos] = entry_of(*row)
