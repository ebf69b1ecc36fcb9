"""API keys and the admin key are re-read on change: a new tenant works, a revoked key stops, within the interval."""

from __future__ import annotations

import time

import pytest
from functions_support import ADMIN_KEY, TENANT_KEYS, keys_json, running_server

from engram_core.core.errors import ConfigurationError, StoreError
from functions.keysource import KeySource
from functions.settings import load_settings

ALICE, BOB = TENANT_KEYS["alice"], TENANT_KEYS["bob"]
NEW_ADMIN, OLD_ADMIN = "egk_new-admin-key-0123456789", "egk_old-admin-key-0123456789"


class Files:
    """The files a KeySource reads, and a clock it runs on: both moved by the test."""

    def __init__(self, **texts: str) -> None:
        self.texts, self.reads, self.now = dict(texts), 0, 0.0

    def read(self, location: str) -> str:
        self.reads += 1
        if self.texts.get(location) is None:
            raise StoreError(f"no object {location}")
        return self.texts[location]


def _source(files: Files, **settings: object) -> KeySource:
    config = load_settings(api_keys_file="keys.json", keys_reload_seconds=30, **settings)
    return KeySource(config, [], read=files.read, clock=lambda: files.now)


def test_a_new_key_works_and_a_revoked_one_stops_once_the_interval_has_passed() -> None:
    files = Files(**{"keys.json": keys_json({"alice": ALICE})})
    keys = _source(files)
    assert keys.tenant_for(ALICE) == "alice" and keys.tenant_for(BOB) is None
    files.texts["keys.json"] = keys_json({"bob": BOB})
    files.now = 29.0
    assert keys.tenant_for(BOB) is None and files.reads == 1  # within the interval: not even asked
    files.now = 30.0
    assert keys.tenant_for(BOB) == "bob" and keys.tenant_for(ALICE) is None
    assert files.reads == 2


def test_a_file_that_breaks_or_vanishes_keeps_the_last_good_keys() -> None:
    files = Files(**{"keys.json": keys_json({"alice": ALICE})})
    keys = _source(files)
    for broken in ("not json", None):
        files.texts["keys.json"] = broken
        files.now += 31
        assert keys.tenant_for(ALICE) == "alice"
    files.texts["keys.json"] = "[]"
    files.now += 31
    assert keys.tenant_for(ALICE) is None


def test_at_start_a_broken_file_is_an_error_and_both_admin_sources_are_refused() -> None:
    with pytest.raises(ConfigurationError):
        _source(Files(**{"keys.json": "not json"}))
    with pytest.raises(ConfigurationError, match="not both"):
        _source(Files(**{"keys.json": "[]", "admin": NEW_ADMIN}), admin_key=ADMIN_KEY, admin_key_file="admin")


def test_the_admin_key_file_rotates_without_a_redeploy() -> None:
    files = Files(**{"keys.json": "[]", "admin": OLD_ADMIN})
    keys = _source(files, admin_key_file="admin")
    assert keys.signing_key == OLD_ADMIN and keys.is_admin(OLD_ADMIN)
    files.texts["admin"] = f"{NEW_ADMIN}\n{OLD_ADMIN}\n"  # step 1: new key first, old one still accepted
    files.now += 30
    assert keys.signing_key == NEW_ADMIN and keys.is_admin(OLD_ADMIN) and keys.verifying_keys == (NEW_ADMIN, OLD_ADMIN)
    files.texts["admin"] = NEW_ADMIN  # step 2, after the longest job queue wait: the old key goes
    files.now += 30
    assert not keys.is_admin(OLD_ADMIN) and keys.is_admin(NEW_ADMIN)


def test_a_running_server_picks_up_an_edited_keys_file(tmp_path) -> None:
    keys_file = tmp_path / "api-keys.json"
    keys_file.write_text(keys_json({"alice": ALICE}))
    with running_server(tmp_path / "tenants", ENGRAM_API_KEYS="[]", ENGRAM_API_KEYS_FILE=str(keys_file),
                        ENGRAM_KEYS_RELOAD_SECONDS="0.5") as server:
        assert server.call("GET", "/stats", ALICE).status_code == 200
        assert server.call("GET", "/stats", BOB).status_code == 401
        keys_file.write_text(keys_json({"bob": BOB}))  # bob added, alice revoked
        deadline = time.monotonic() + 10
        while server.call("GET", "/stats", BOB).status_code != 200 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert server.call("GET", "/stats", BOB).status_code == 200
        assert server.call("GET", "/stats", ALICE).status_code == 401
        assert server.wait_for_log("keys reloaded")
