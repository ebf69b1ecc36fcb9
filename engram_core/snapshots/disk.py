"""How much of an instance's disk the snapshot machinery may use, derived from the disk it has.

Everything lives on the writable layer (FC's ``diskSize``: 512 MB or 10 GB): the warm cache of
sealed-then-unsealed generations, the read replicas (one open working copy per recently read
tenant), and the working copies of the operations in flight (a write holds one, plus its sealed
upload). The split, of the disk less a reserve for logs, temp files and SQLite journals:

    cache 30%  |  replicas 30%  |  operations in flight 40%

so the defaults can never fill the disk: on 512 MB the cache gets 134 MiB, not 512. With no disk size
given (a laptop, a server with a real disk) the cache gets 512 MiB and the replicas 256 MiB.
"""

from __future__ import annotations

from dataclasses import dataclass

from engram_core.core.errors import ConfigurationError

CACHE_SHARE = 0.30
REPLICA_SHARE = 0.30
DEFAULT_CACHE_MB = 512  # with no disk size given (a laptop, a server with a real disk)
DEFAULT_REPLICA_MB = 256  # likewise; an open replica's memory (its index, its page cache) grows with its file


@dataclass(frozen=True)
class DiskBudget:
    disk_mb: int | None
    reserve_mb: int
    cache_mb: int
    replica_mb: int

    @property
    def in_flight_mb(self) -> int | None:
        if self.disk_mb is None:
            return None
        return self.disk_mb - self.reserve_mb - self.cache_mb - self.replica_mb


def reserve_for(disk_mb: int) -> int:
    return max(32, disk_mb // 8)


def disk_budget(disk_mb: int | None, cache_mb: int | None = None) -> DiskBudget:
    """The bounds for a disk of ``disk_mb`` MiB; ``cache_mb`` is an explicit setting that must fit."""
    if disk_mb is None:
        return DiskBudget(None, 0, cache_mb or DEFAULT_CACHE_MB, DEFAULT_REPLICA_MB)
    reserve = reserve_for(disk_mb)
    usable = disk_mb - reserve
    share = int(usable * CACHE_SHARE)
    if cache_mb is not None and cache_mb > share:
        raise ConfigurationError(
            f"ENGRAM_SNAPSHOT_CACHE_MB={cache_mb} does not fit ENGRAM_DISK_MB={disk_mb}: the cache may take at most "
            f"{share} MiB there (30% of the disk less {reserve} MiB), beside read replicas and working copies",
            field="ENGRAM_SNAPSHOT_CACHE_MB")
    return DiskBudget(disk_mb, reserve, cache_mb or share, int(usable * REPLICA_SHARE))
