"""The memory board: one page, served from the package, that chats and shows every engine decision.

The page is static (HTML, CSS and JavaScript modules in ``functions/web``); it
talks to the same API as any other client, with the API key the user enters.
Nothing is fetched from anywhere else, so it works offline.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Response

from engram_core.core.errors import NotFoundError

router = APIRouter(include_in_schema=False)
WEB_DIR = Path(__file__).resolve().parent / "web"

ASSET_NAME = re.compile(r"^[a-z][a-z0-9-]{0,40}\.(css|js)$")
MEDIA_TYPES = {"html": "text/html; charset=utf-8", "css": "text/css; charset=utf-8",
               "js": "text/javascript; charset=utf-8"}
# The page runs only its own files; the key it holds cannot be sent elsewhere.
CONTENT_SECURITY_POLICY = ("default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
                           "connect-src 'self'; form-action 'none'; base-uri 'none'; frame-ancestors 'none'")
HEADERS = {"Content-Security-Policy": CONTENT_SECURITY_POLICY, "X-Content-Type-Options": "nosniff",
           "Referrer-Policy": "no-referrer", "Cache-Control": "no-cache"}


@lru_cache(maxsize=32)
def read_asset(name: str) -> bytes | None:
    """The bytes of a file in ``functions/web``, or None when there is no such file."""
    path = WEB_DIR / name
    return path.read_bytes() if path.is_file() else None


def _asset_response(name: str) -> Response:
    content = read_asset(name)
    if content is None:
        raise NotFoundError(f"no board file {name!r}", field="name")
    return Response(content, media_type=MEDIA_TYPES[name.rsplit(".", 1)[1]], headers=HEADERS)


@router.get("/")
def board_page() -> Response:
    """The memory board."""
    return _asset_response("index.html")


@router.get("/board/{name}")
def board_asset(name: str) -> Response:
    """The board's stylesheet and scripts; nothing else in the package is reachable."""
    if not ASSET_NAME.match(name):
        raise NotFoundError(f"no board file {name!r}", field="name")
    return _asset_response(name)
