"""Idempotency keys: a retried write with the same key returns the first result and writes nothing twice.

The first result is kept in the tenant's own store, written by the same
operation as the write itself, so a retry that lands on another instance (or
after a lost commit race) still finds it. Records live in a fixed ring of
slots in the store's meta table: the newest ``SLOTS`` keys are remembered and
storage never grows.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from engram_core.core.errors import ValidationError
from engram_core.core.ports import MetaStore

SLOTS = 128
MAX_KEPT_BYTES = 256 * 1024  # a larger first result is not kept: its retry gets a 409 instead of a copy
_INDEX = "idempotency.index"
_SLOT = "idempotency.slot."
_KEY = re.compile(r"^[\x21-\x7e]{1,200}$")


class KeyReusedError(ValidationError):
    """The same Idempotency-Key came with a different request."""

    code = "idempotency_key_reused"


@dataclass(frozen=True)
class Replay:
    status: int
    body: object


def check_key(key: str | None) -> str | None:
    if key is None:
        return None
    if not _KEY.match(key):
        raise ValidationError("Idempotency-Key must be 1-200 visible ASCII characters", field="Idempotency-Key")
    return hashlib.sha256(key.encode("ascii")).hexdigest()


def fingerprint(method: str, path: str, body: bytes) -> str:
    """What makes two requests "the same request" for one key."""
    return hashlib.sha256(b"\n".join([method.encode(), path.encode(), body])).hexdigest()


def _index(store: MetaStore) -> dict:
    raw = store.get_meta(_INDEX)
    return json.loads(raw) if raw else {"next": 0, "slots": {}}


def find(store: MetaStore, key_digest: str, request_fingerprint: str) -> Replay | None:
    """The first result for this key, or None; the same key with another request is an error."""
    slot = _index(store)["slots"].get(key_digest)
    if slot is None:
        return None
    record = json.loads(store.get_meta(f"{_SLOT}{slot}") or "{}")
    if record.get("key") != key_digest:
        return None
    if record["fingerprint"] != request_fingerprint:
        raise KeyReusedError("this Idempotency-Key was used with a different request", field="Idempotency-Key")
    return Replay(record["status"], record["body"])


def _kept(replay: Replay) -> Replay:
    """What a retry will get: the first result, or a conflict when that result is too large to keep."""
    if len(json.dumps(replay.body, separators=(",", ":"))) <= MAX_KEPT_BYTES:
        return replay
    message = "this Idempotency-Key was already used; its result was too large to keep, and nothing was redone"
    return Replay(409, {"error": {"code": "idempotent_result_not_kept", "message": message,
                                  "field": "Idempotency-Key"}})


def save(store: MetaStore, key_digest: str, request_fingerprint: str, replay: Replay) -> None:
    replay = _kept(replay)
    index = _index(store)
    slot = index["next"]
    index["slots"] = {k: v for k, v in index["slots"].items() if v != slot}
    index["slots"][key_digest] = slot
    index["next"] = (slot + 1) % SLOTS
    record = {"key": key_digest, "fingerprint": request_fingerprint, "status": replay.status, "body": replay.body}
    with store.transaction():
        store.set_meta(f"{_SLOT}{slot}", json.dumps(record, separators=(",", ":")))
        store.set_meta(_INDEX, json.dumps(index, separators=(",", ":")))
