"""``engram mcp`` over stdio, driven by the official MCP client against a real server subprocess."""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest
from mcp_support import call, call_error, stdio_client

PUBLIC_TOOLS = {
    "engram_remember", "engram_recall", "engram_list", "engram_beliefs", "engram_forget", "engram_stats",
    "engram_export", "engram_import", "engram_sleep", "engram_dream", "engram_dream_apply",
}


def _memory_ids(listing: dict, needle: str) -> list[str]:
    return [m["id"] for m in listing["memories"] if needle in m["text"]]


def test_tools_are_listed_with_typed_described_schemas(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            tools = {t.name: t for t in (await client.list_tools()).tools}
            assert set(tools) == PUBLIC_TOOLS
            for tool in tools.values():
                assert tool.description and tool.input_schema["type"] == "object"
                for name, prop in tool.input_schema.get("properties", {}).items():
                    assert prop.get("description"), f"{tool.name}.{name} has no description"
            recall = tools["engram_recall"].input_schema
            assert recall["required"] == ["query"]
            assert recall["properties"]["budget_tokens"]["type"] == "integer"
            assert recall["properties"]["budget_tokens"]["minimum"] == 1
            remember = tools["engram_remember"].input_schema
            assert remember["required"] == ["text"]
            assert remember["properties"]["kind"]["enum"] == ["fact", "preference", "skill", "episode"]
            assert {"minimum": 0, "maximum": 1} .items() <= remember["properties"]["importance"]["anyOf"][0].items()
            assert tools["engram_forget"].input_schema["properties"]["confirm_purge"]["type"] == "boolean"
            assert set(tools["engram_dream_apply"].input_schema["required"]) == {"proposal_id", "approved"}
            assert tools["engram_list"].annotations.read_only_hint is True
            assert tools["engram_forget"].annotations.destructive_hint is True

    anyio.run(scenario)


def test_remember_recall_supersede_forget_and_purge(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            for text in ("I live in Lisbon.", "My project is called ECHO.", "I am allergic to shellfish."):
                written = await call(client, "engram_remember", {"text": text})
                assert "stored" in {e["kind"] for e in written["events"]}

            recalled = await call(client, "engram_recall", {"query": "where do I live?", "budget_tokens": 60})
            assert 0 < recalled["tokens_used"] <= 60 and "Lisbon" in recalled["block"]
            assert {"similarity", "retention", "score"} <= recalled["items"][0]["score"].keys()
            small = await call(client, "engram_recall", {"query": "tell me everything", "budget_tokens": 20})
            assert len(small["items"]) < 3 and small["tokens_used"] <= 20

            moved = await call(client, "engram_remember", {"text": "I moved to Ponta Delgada."})
            assert "superseded" in {e["kind"] for e in moved["events"]}
            recalled = await call(client, "engram_recall", {"query": "where do I live?", "budget_tokens": 300})
            assert "Ponta Delgada" in recalled["block"] and "Lisbon" not in recalled["block"]
            beliefs = await call(client, "engram_beliefs", {"subject": "user"})
            assert "Lisbon" not in {b["object"] for b in beliefs["beliefs"]}
            old = [b for b in beliefs["history"] if b["object"] == "Lisbon"]
            assert old and old[0]["valid_to"] and old[0]["superseded_by"] and not old[0]["current"]

            echo = _memory_ids(await call(client, "engram_list", {"text": "ECHO"}), "ECHO")
            assert len(echo) == 1
            forgot = await call(client, "engram_forget", {"memory_id": echo[0]})
            assert [e["kind"] for e in forgot["events"]] == ["forgotten"]
            recalled = await call(client, "engram_recall", {"query": "what is my project called?"})
            assert "ECHO" not in recalled["block"]
            message = await call_error(client, "engram_forget", {"memory_id": echo[0], "purge": True})
            assert "confirm_purge" in message
            assert _memory_ids(await call(client, "engram_list", {"status": ["deleted"]}), "ECHO") == echo
            purged = await call(client, "engram_forget", {"memory_id": echo[0], "purge": True, "confirm_purge": True})
            assert [e["kind"] for e in purged["events"]] == ["purged"]
            assert _memory_ids(await call(client, "engram_list", {"limit": 500}), "ECHO") == []
            assert "ECHO" not in (await call(client, "engram_export"))["data"]

    anyio.run(scenario)


def test_list_pages_and_filters(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            for n in range(5):
                await call(client, "engram_remember", {"text": f"Trip note {n}: visited museum {n}", "kind": "episode",
                                                       "importance": 0.5})
            await call(client, "engram_remember", {"text": "Prefers aisle seats", "kind": "preference",
                                                   "importance": 0.8})
            first = await call(client, "engram_list", {"kind": ["episode"], "limit": 3})
            second = await call(client, "engram_list",
                                {"kind": ["episode"], "limit": 3, "offset": first["next_offset"]})
            assert len(first["memories"]) == 3 and first["next_offset"] == 3
            assert len(second["memories"]) == 2 and second["next_offset"] is None
            ids = [m["id"] for m in first["memories"] + second["memories"]]
            assert len(set(ids)) == 5
            prefs = await call(client, "engram_list", {"kind": ["preference"]})
            assert [m["text"] for m in prefs["memories"]] == ["Prefers aisle seats"]
            stats = await call(client, "engram_stats")
            assert stats["tenant"] == "default" and stats["memories"]["active"] == 6

    anyio.run(scenario)


def test_export_import_round_trip_into_another_tenant(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path, tenant="original") as client:
            for text in ("I live in Lisbon.", "I moved to Ponta Delgada.", "I am allergic to shellfish."):
                await call(client, "engram_remember", {"text": text})
            exported = await call(client, "engram_export")
        async with stdio_client(tmp_path, tenant="copy") as client:
            imported = await call(client, "engram_import", {"data": exported["data"]})
            assert imported["imported"]["memory"] == 3 and imported["imported"]["belief"] >= 3
            assert (await call(client, "engram_export"))["data"] == exported["data"]
            again = await call_error(client, "engram_import", {"data": exported["data"]})
            assert "already exists" in again
            assert (await call(client, "engram_export"))["data"] == exported["data"]
            recalled = await call(client, "engram_recall", {"query": "where do I live?", "budget_tokens": 200})
            assert "Ponta Delgada" in recalled["block"] and "Lisbon" not in recalled["block"]
        assert sorted(p.parent.name for p in tmp_path.glob("*/engram.sqlite")) == ["copy", "original"]

    anyio.run(scenario)


def test_dream_applies_only_approved_ids_and_rejects_a_hallucinated_one(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            for text in ("We hiked up Pico mountain on Saturday", "We hiked up Pico mountain on Saturday!"):
                await call(client, "engram_remember", {"text": text, "kind": "episode", "importance": 0.6})
            allergy = await call(client, "engram_remember", {"text": "Ben is allergic to peanuts.", "kind": "episode",
                                                             "importance": 0.5})
            proposal = await call(client, "engram_dream")
            by_kind = {a["action"]: a for a in proposal["actions"]}
            assert {"merge", "reimportance"} <= by_kind.keys()
            raise_id = by_kind["reimportance"]["id"]
            applied = await call(client, "engram_dream_apply", {"proposal_id": proposal["id"],
                                                                "approved": [raise_id, "a99"]})
            assert applied["applied"] == [raise_id] and applied["rejected"] == ["a99"]
            listing = await call(client, "engram_list", {"kind": ["episode"]})
            status = {m["text"]: (m["status"], m["importance"]) for m in listing["memories"]}
            assert status["Ben is allergic to peanuts."] == ("active", 0.95)
            assert allergy["memories"][0]["importance"] == 0.5
            assert all(s == "active" for s, _ in status.values()), "the merge was not approved"
            again = await call_error(client, "engram_dream_apply", {"proposal_id": proposal["id"], "approved": ["a1"]})
            assert "already applied" in again
            missing = await call_error(client, "engram_dream_apply", {"proposal_id": "drm_made_up", "approved": ["a1"]})
            assert "no dream proposal" in missing

    anyio.run(scenario)


def test_sleep_and_resources(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path) as client:
            await call(client, "engram_remember", {"text": "I live in Lisbon."})
            slept = await call(client, "engram_sleep")
            assert slept["memories"] == [] and isinstance(slept["events"], list)
            context = (await client.read_resource("engram://memory-context")).contents[0].text
            assert context.startswith("<memories") and "lives in Lisbon" in context
            for_query = (await client.read_resource("engram://memory-context/where%20do%20I%20live%3F")).contents[0].text
            assert "Lisbon" in for_query
            stats = await call(client, "engram_stats")
            assert stats["memories"]["active"] == 1

    anyio.run(scenario)


@pytest.mark.slow
def test_default_minilm_embedder_serves_recall(tmp_path: Path) -> None:
    async def scenario() -> None:
        async with stdio_client(tmp_path, embedder=None) as client:
            await call(client, "engram_remember", {"text": "I am allergic to shellfish."})
            await call(client, "engram_remember", {"text": "My favourite band is Radiohead."})
            recalled = await call(client, "engram_recall", {"query": "book a seafood dinner", "budget_tokens": 200})
            assert "shellfish" in recalled["items"][0]["text"]
            assert (await call(client, "engram_stats"))["embedder"].startswith("all-MiniLM-L6-v2")

    anyio.run(scenario)
