"""Delta generations: a generation that holds only the pages its commit changed.

A generation is still one create-only object at ``{tenant}/snap/{N}.sqlite.zst``
(so two writers of N never both win, whatever kind each writes); its metadata
says which kind it is. A delta names the full generation its chain starts from
(``base``) and the checksum of the generation before it (``parent-sha256``), so
a reader applies ``base``, then ``base+1`` ... ``N`` in order and refuses a link
that does not follow from the one before (Litestream orders its files the same
way, by transaction id, and checks each against the state it applies to).

A chain stays short: once it holds ``max_chain`` deltas, or its deltas add up to
``max_share`` of the full snapshot's bytes, the next commit writes a full
snapshot again (so does a purge, a schema change, and the sleep job's compaction).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass

import zstandard

from engram_core.core.errors import CorruptSnapshotError
from engram_core.snapshots import pages
from engram_core.snapshots.codec import CODEC, DEFAULT_LEVEL, decompress

DELTA_CODEC = "zstd-pages"


@dataclass(frozen=True)
class CompactionPolicy:
    max_chain: int = 32
    max_share: float = 0.5

    def wants_full(self, parent: Lineage, delta_bytes: int) -> bool:
        return (parent.chain + 1 > self.max_chain
                or parent.chain_bytes + delta_bytes > self.max_share * parent.base_bytes)


@dataclass(frozen=True)
class Lineage:
    """Where a generation stands: its checksum and the chain of deltas since the last full snapshot."""

    generation: int
    sha256: str
    base: int
    chain: int = 0
    chain_bytes: int = 0
    base_bytes: int = 0

    @property
    def is_full(self) -> bool:
        return self.chain == 0

    def after(self, generation: int, sha256: str, size: int) -> Lineage:
        return Lineage(generation, sha256, self.base, self.chain + 1, self.chain_bytes + size, self.base_bytes)


def is_delta(metadata: Mapping[str, str]) -> bool:
    return metadata.get("codec") == DELTA_CODEC


def lineage_of(generation: int, metadata: Mapping[str, str], size: int) -> Lineage | None:
    """From an object's metadata (and payload size); None when the metadata is incomplete."""
    sha = metadata.get("sha256", "")
    if not is_delta(metadata):
        return Lineage(generation, sha, generation, base_bytes=size) if sha else None
    try:
        return Lineage(generation, sha, int(metadata["base"]), int(metadata["chain"]),
                       int(metadata["chain-bytes"]), int(metadata["base-bytes"]))
    except (KeyError, ValueError):
        return None


@dataclass(frozen=True)
class SealedDelta:
    payload: bytes
    sha256: str
    raw_size: int
    schema: int
    parent: Lineage

    def metadata(self) -> dict[str, str]:
        after = self.lineage(self.parent.generation + 1)
        return {"sha256": self.sha256, "codec": DELTA_CODEC, "raw-size": str(self.raw_size),
                "schema": str(self.schema), "base": str(after.base), "chain": str(after.chain),
                "chain-bytes": str(after.chain_bytes), "base-bytes": str(after.base_bytes),
                "parent-sha256": self.parent.sha256}

    def lineage(self, generation: int) -> Lineage:
        return self.parent.after(generation, self.sha256, len(self.payload))


def seal_delta(delta: pages.PageDelta, schema: int, parent: Lineage, level: int = DEFAULT_LEVEL) -> SealedDelta:
    raw = pages.encode(delta)
    payload = zstandard.ZstdCompressor(level=level).compress(raw)
    return SealedDelta(payload, hashlib.sha256(payload).hexdigest(), len(raw), schema, parent)


def unseal_delta(payload: bytes, metadata: Mapping[str, str], parent_sha256: str, where: str) -> pages.PageDelta:
    """The pages inside a delta, after its own checksum and its link to the generation before it."""
    expected = metadata.get("sha256")
    if not expected or hashlib.sha256(payload).hexdigest() != expected:
        raise CorruptSnapshotError(f"{where}: checksum mismatch ({len(payload)} bytes)")
    if metadata.get("parent-sha256") != parent_sha256:
        raise CorruptSnapshotError(f"{where}: does not follow from the generation before it")
    raw = decompress(payload, where)
    if str(len(raw)) != metadata.get("raw-size"):
        raise CorruptSnapshotError(f"{where}: not the delta the writer sealed")
    return pages.decode(raw, where)


def known_codec(metadata: Mapping[str, str]) -> bool:
    return metadata.get("codec", CODEC) in (CODEC, DELTA_CODEC)
