"""The memory board in a real browser: Debian's Chromium (Playwright) against `engram serve` on loopback.

The story runs through the page itself: the key is typed once, every message
goes through the chat panel, the clock moves with the page's own buttons.
"""

from __future__ import annotations

import re
import struct
from datetime import datetime, timedelta

import pytest
from board_support import ARTIFACTS, Board, launch, open_board, play_story
from functions_support import TENANT_KEYS, running_server
from playwright.sync_api import expect, sync_playwright

WIDE = {"width": 1440, "height": 1500}
PHONE = {"width": 390, "height": 844}
PNG_MAGIC = b"\x89PNG\r\n\x1a\n"
EVERY_CONTROL = {"Forget key", "Advance the clock one day", "Advance the clock one week",
                 "Advance the clock three weeks", "Sleep", "Consolidate session", "Dream", "Session", "New session",
                 "Message", "Send", "Believed as of", "Now", "Show"}


@pytest.fixture(scope="module")
def browser():
    with sync_playwright() as playwright:
        chromium = launch(playwright)
        yield chromium
        chromium.close()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    with running_server(tmp_path_factory.mktemp("board") / "tenants") as running:
        yield running


def _user_history(server, tenant: str) -> list[dict]:
    return server.as_tenant(tenant)("GET", "/beliefs", params={"subject": "user"}).json()["items"]


def _belief(history: list[dict], obj: str) -> dict:
    return next(b for b in history if b["object"] == obj)


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_MAGIC
    return struct.unpack(">II", data[16:24])


def _assert_superseded_decision(board: Board, lisbon: dict, ponta: dict) -> None:
    page = board.page
    decision = page.locator("#feed li.superseded", has=page.locator("del", has_text="Lisbon"))
    expect(decision).to_have_count(1)
    struck = decision.locator("del")
    expect(struck).to_have_text(lisbon["statement"])
    assert "line-through" in struck.evaluate("e => getComputedStyle(e).textDecorationLine")
    link = decision.get_by_role("link", name=ponta["statement"])
    expect(link).to_have_attribute("href", f"#belief-{ponta['id']}")
    link.focus()
    link.press("Enter")
    successor_row = page.locator(f"#history-{ponta['id']}")
    expect(successor_row).to_be_focused()
    expect(successor_row).to_contain_text("Ponta Delgada")
    old_row = page.locator(f"#history-{lisbon['id']}")
    expect(old_row.locator("del")).to_have_text("Lisbon")
    expect(old_row.get_by_role("link")).to_have_attribute("href", f"#belief-{ponta['id']}")


def _assert_as_of_before_the_move(board: Board, lisbon: dict) -> None:
    page = board.page
    slider = page.get_by_label("Believed as of")
    slider.focus()
    slider.press("Home")
    for _ in range(7):
        slider.press("ArrowRight")
    day = (datetime.fromisoformat(lisbon["valid_from"]).date() + timedelta(days=7)).isoformat()
    listing = page.locator("#belief-list")
    expect(page.locator("#as-of-label")).to_have_text(day)
    expect(listing).to_have_attribute("data-as-of", day)
    expect(listing.locator(f"#belief-{lisbon['id']}")).to_contain_text("Lisbon")
    expect(listing).not_to_contain_text("Ponta Delgada")
    expect(listing).to_contain_text("ECHO")
    page.get_by_role("button", name="Now", exact=True).click()
    expect(listing).to_have_attribute("data-as-of", "now")
    expect(listing).to_contain_text("Ponta Delgada")
    expect(listing).not_to_contain_text("Lisbon")


def test_the_story_on_the_board_shows_the_superseded_belief_and_the_past(browser, server) -> None:
    board = open_board(browser, server.url, viewport=WIDE)
    board.connect(TENANT_KEYS["carol"])
    play_story(board)

    history = _user_history(server, "carol")
    lisbon, ponta = _belief(history, "Lisbon"), _belief(history, "Ponta Delgada")
    assert lisbon["superseded_by"] == ponta["id"] and ponta["current"] and not lisbon["current"]
    _assert_superseded_decision(board, lisbon, ponta)
    _assert_as_of_before_the_move(board, lisbon)

    page = board.page
    move = page.locator("#feed > li", has=page.locator("li.superseded", has_text="Lisbon"))
    meter = move.get_by_role("meter", name="Recalled tokens against the budget")
    assert 0 < int(meter.get_attribute("aria-valuenow")) <= int(meter.get_attribute("aria-valuemax")) == 300
    assert move.locator("table.scores tbody tr").count() >= 1
    decayed = page.locator("#retention-list li.status-decayed")
    assert decayed.count() >= 1, "the story's first-session episodes faded three weeks later"
    expect(decayed.first.locator("svg line.floor")).to_have_count(1)
    expect(page.locator("#clock-offset")).to_have_text("(clock offset +35 d)")

    move.scroll_into_view_if_needed()
    ARTIFACTS.mkdir(exist_ok=True)
    shot = ARTIFACTS / "board.png"
    page.screenshot(path=str(shot))
    assert _png_size(shot.read_bytes()) == (WIDE["width"], WIDE["height"])
    assert board.console_errors == [] and board.page_errors == []


def test_a_turn_shows_what_was_recalled_and_what_was_not_stored(browser, server) -> None:
    board = open_board(browser, server.url, viewport=WIDE)
    board.connect(TENANT_KEYS["alice"])
    board.say("I'm allergic to peanuts.")
    board.say("ok")
    not_stored = [e for e in server.as_tenant("alice")("GET", "/events").json()["items"]
                  if e["kind"] == "not_stored" and "importance" in e["detail"]]
    assert not_stored, "a bare 'ok' falls under the importance threshold"
    detail = not_stored[-1]["detail"]
    turn = board.page.locator("#feed > li").first
    expect(turn.locator("li.not-stored", has_text="ok")).to_contain_text(
        f"importance {detail['importance']:.2f} is under the threshold {detail['threshold']:.2f}")
    expect(turn.locator("table.scores tbody tr").first).to_contain_text("allergic to peanuts")
    assert board.console_errors == [] and board.page_errors == []


def _newest_card(board: Board):
    return board.page.locator("#feed > li").first


def test_maintenance_controls_dream_with_approval_and_purge_with_confirmation(browser, server) -> None:
    board = open_board(browser, server.url, viewport=WIDE)
    board.connect(TENANT_KEYS["bob"])
    board.say("My favourite tea is genmaicha.")
    board.say("My favourite tea is genmaicha.")
    page = board.page
    board.act(page.get_by_role("button", name="Dream").click)
    dialog = page.get_by_role("dialog", name="Dream proposal")
    expect(dialog).to_be_visible()
    choices = dialog.get_by_role("checkbox")
    assert choices.count() >= 1
    choices.first.press("Space")
    board.act(dialog.get_by_role("button", name="Apply approved").click)
    expect(_newest_card(board).locator("li.dream_applied")).to_contain_text("a1")
    bob = server.as_tenant("bob")
    assert [e["kind"] for e in bob("GET", "/events").json()["items"]].count("dream_applied") == 1

    board.act(page.get_by_role("button", name="Consolidate session").click)
    expect(_newest_card(board).locator("h3")).to_contain_text("consolidate session-1")
    expect(_newest_card(board).locator("li.consolidated")).to_contain_text("session session-1")
    board.act(page.get_by_role("button", name="Sleep").click)
    expect(_newest_card(board).locator("li.consolidated")).to_contain_text("sleep cycle")

    target = bob("GET", "/memories", params={"status": "active"}).json()["items"][0]
    page.locator(f"#memory-{target['id']}").get_by_role("button", name=re.compile("^Purge")).click()
    confirm = page.get_by_role("dialog", name="Purge this memory?")
    expect(confirm).to_contain_text("cannot be undone")
    board.act(confirm.get_by_role("button", name="Purge").click)
    expect(_newest_card(board).locator("li.purged")).to_contain_text(target["id"])
    purged = [e for e in bob("GET", "/events").json()["items"] if e["kind"] == "purged"]
    assert [e["memory_id"] for e in purged] == [target["id"]]
    assert board.console_errors == [] and board.page_errors == []


def _focused(page) -> dict:
    return page.evaluate("""() => {
        const el = document.activeElement;
        const label = el.getAttribute('aria-label') || (el.labels && el.labels[0] && el.labels[0].textContent)
            || el.textContent;
        return {tag: el.tagName.toLowerCase(), name: (label || '').trim().replace(/\\s+/g, ' '),
                role: el.getAttribute('role'), tabindex: el.getAttribute('tabindex')};
    }""")


def _tab_until(page, name: str, key: str = "Tab", limit: int = 120) -> list[dict]:
    seen = []
    for _ in range(limit):
        page.keyboard.press(key)
        seen.append(_focused(page))
        if seen[-1]["name"].startswith(name):
            return seen
    raise AssertionError(f"{name!r} is not reachable with Tab; reached {[s['name'] for s in seen]}")


def test_keyboard_only_on_a_narrow_screen(browser, server) -> None:
    board = open_board(browser, server.url, viewport=PHONE)
    page = board.page
    expect(page.get_by_label("API key")).to_be_focused()
    page.keyboard.type(TENANT_KEYS["dave"])
    page.keyboard.press("Enter")
    expect(page.get_by_label("Message", exact=True)).to_be_focused()
    page.keyboard.type("I live in Lisbon.")
    board.act(lambda: page.keyboard.press("Enter"))
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth"), "no sideways scrolling"

    _tab_until(page, "Skip to the chat", key="Shift+Tab")
    path = _tab_until(page, "Forget “")
    names = {step["name"] for step in path}
    assert EVERY_CONTROL <= names, f"not reached with Tab: {EVERY_CONTROL - names}"
    assert all(step["name"] for step in path), f"every stop has an accessible name: {path}"
    assert all(step["tag"] in ("a", "button", "input", "select") or step["tabindex"] == "0" for step in path)

    page.keyboard.press("Enter")
    confirm = page.get_by_role("dialog", name="Forget this memory?")
    expect(confirm).to_be_visible()
    expect(confirm.get_by_role("button", name="Cancel")).to_be_focused()
    page.keyboard.press("Escape")
    expect(confirm).to_be_hidden()
    before = board.cards()
    page.keyboard.press("Enter")
    page.keyboard.press("Tab")
    expect(confirm.get_by_role("button", name="Forget")).to_be_focused()
    board.act(lambda: page.keyboard.press("Enter"))
    assert board.cards() == before + 1
    expect(page.locator("#feed > li").first.locator("li.forgotten")).to_have_count(1)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert board.console_errors == [] and board.page_errors == []


def test_errors_are_clear_and_the_key_stays_in_session_storage(browser, tmp_path) -> None:
    with running_server(tmp_path / "tenants", ENGRAM_RATE_BURST="2", ENGRAM_RATE_PER_MINUTE="1") as limited:
        board = open_board(browser, limited.url, viewport=WIDE)
        page = board.page
        alert = page.get_by_role("alert")
        board.connect_refused("egk_not-a-key-of-anyone-0000000000")
        expect(alert).to_contain_text("401")
        assert page.evaluate("sessionStorage.getItem('engram.apiKey')") is None, "a refused key is not kept"

        key = TENANT_KEYS["dave"]
        board.connect(key)
        assert page.evaluate("sessionStorage.getItem('engram.apiKey')") == key
        assert page.evaluate("localStorage.length") == 0 and page.evaluate("document.cookie") == ""
        page.reload()
        expect(page.locator("#tenant-name")).to_have_text("dave")  # entered once: the tab remembers it
        page.get_by_role("button", name="Forget key").click()
        expect(page.get_by_label("API key")).to_be_focused()
        assert page.evaluate("sessionStorage.getItem('engram.apiKey')") is None
        board.connect(key)

        board.say("I live in Lisbon.")
        page.get_by_label("Message", exact=True).fill("x" * 40_000)
        page.get_by_role("button", name="Send").click()
        expect(alert).to_contain_text("422")
        expect(alert).to_contain_text("message")

        page.get_by_label("Message", exact=True).fill("Where do I live?")
        page.get_by_role("button", name="Send").click()
        expect(alert).to_contain_text(re.compile(r"429\): try again in \d+ s"))
        first = int(re.search(r"in (\d+) s", alert.inner_text()).group(1))
        page.wait_for_timeout(2200)
        assert int(re.search(r"in (\d+) s", alert.inner_text()).group(1)) < first, "the wait counts down"
        assert board.cards() == 1, "failed requests add no decisions"

        assert board.page_errors == []
        assert all(re.search(r"status of (401|422|429)", text) for text in board.console_errors), board.console_errors
