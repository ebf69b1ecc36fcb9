"""The memory board in a real browser: Debian's Chromium at /usr/bin/chromium, driven by Playwright.

No browser is ever downloaded (``playwright install`` is never run); the page
talks only to the ``engram serve`` process on loopback.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "test-artifacts"
STORY = ROOT / "examples" / "lisbon-story.txt"
CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 "--no-first-run", "--disable-default-apps", "--disable-extensions", "--metrics-recording-only"]
ACTION_TIMEOUT_MS = 60_000
# Clock controls of the page, largest first: a story's "/advance 2w" is two presses of "+1 week".
CLOCK_BUTTONS = ((21, "Advance the clock three weeks"), (7, "Advance the clock one week"),
                 (1, "Advance the clock one day"))


def require_chromium() -> Path:
    """The browser, or a loud failure: only an explicit opt-out outside CI may skip."""
    if CHROMIUM.is_file():
        return CHROMIUM
    message = ("no Chromium at /usr/bin/chromium: scripts/test.sh installs it with "
               "`apt-get install -y chromium fonts-liberation`")
    in_ci = os.environ.get("CI", "").lower() in ("1", "true", "yes")
    if os.environ.get("ENGRAM_BROWSER_TESTS") == "skip" and not in_ci:
        pytest.skip(message)
    pytest.fail(message, pytrace=False)


def launch(playwright):
    return playwright.chromium.launch(executable_path=str(require_chromium()), args=CHROMIUM_ARGS,
                                      headless=True)


@dataclass
class Board:
    """One browser page on the board, with every console error and page error it produced."""

    page: object
    console_errors: list[str] = field(default_factory=list)
    page_errors: list[str] = field(default_factory=list)

    def cards(self) -> int:
        return self.page.locator("#feed > li").count()

    def wait_for_cards(self, count: int) -> None:
        self.page.wait_for_function(
            "n => document.querySelectorAll('#feed > li').length === n"
            " && document.getElementById('app').getAttribute('aria-busy') === 'false'",
            arg=count, timeout=ACTION_TIMEOUT_MS)

    def act(self, trigger) -> None:
        before = self.cards()
        trigger()
        self.wait_for_cards(before + 1)

    def connect(self, key: str) -> None:
        field_ = self.page.get_by_label("API key")
        field_.fill(key)
        field_.press("Enter")
        self.page.locator("#chat-input").wait_for(state="visible", timeout=ACTION_TIMEOUT_MS)
        self.page.wait_for_function("document.getElementById('app').getAttribute('aria-busy') === 'false'")

    def connect_refused(self, key: str) -> None:
        field_ = self.page.get_by_label("API key")
        field_.fill(key)
        field_.press("Enter")
        self.page.get_by_role("alert").wait_for(state="visible", timeout=ACTION_TIMEOUT_MS)

    def say(self, text: str) -> None:
        box = self.page.get_by_label("Message", exact=True)
        box.fill(text)
        self.act(lambda: box.press("Enter"))

    def advance(self, days: int) -> None:
        for size, label in CLOCK_BUTTONS:
            while days >= size:
                self.act(self.page.get_by_role("button", name=label).click)
                days -= size

    def use_session(self, name: str) -> None:
        select = self.page.get_by_label("Session", exact=True)
        if select.input_value() == name:
            return
        if name not in select.locator("option").all_inner_texts():
            self.page.get_by_role("button", name="New session").click()
        else:
            select.select_option(name)
        assert select.input_value() == name


def open_board(browser, url: str, **context_options: object) -> Board:
    context = browser.new_context(**context_options)
    context.set_default_timeout(ACTION_TIMEOUT_MS)
    page = context.new_page()
    board = Board(page)
    page.on("console", lambda msg: board.console_errors.append(msg.text) if msg.type == "error" else None)
    page.on("pageerror", lambda exc: board.page_errors.append(str(exc)))
    page.goto(url + "/")
    return board


def story_steps() -> list[tuple[str, str]]:
    """The Lisbon story as (command, argument) steps: session, advance (days) or say."""
    steps = []
    for line in STORY.read_text(encoding="utf-8").splitlines():
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("/session "):
            steps.append(("session", line.split(maxsplit=1)[1]))
        elif line.startswith("/advance "):
            match = re.fullmatch(r"(\d+)([dw])", line.split(maxsplit=1)[1])
            assert match, line
            steps.append(("advance", str(int(match.group(1)) * (7 if match.group(2) == "w" else 1))))
        else:
            steps.append(("say", line))
    return steps


def play_story(board: Board) -> None:
    for command, argument in story_steps():
        if command == "session":
            board.use_session(argument)
        elif command == "advance":
            board.advance(int(argument))
        else:
            board.say(argument)
