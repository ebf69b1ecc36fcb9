"""A small OpenAI-compatible HTTP server on 127.0.0.1 for tests.

It serves ``/v1/chat/completions`` (plain JSON or a server-sent-event stream) and
``/v1/embeddings`` from scripted answers, and records every request it gets, so
tests drive the real ``openai`` client over real HTTP and then inspect exactly
what was sent.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from engram_core.adapters.hashing import HashingEmbedder


@dataclass
class Reply:
    """One scripted answer: a completion (content and optional reasoning), an error status, or vectors."""

    content: str | None = ""
    reasoning: str | None = None
    status: int = 200
    error: str = "scripted error"
    delay: float = 0.0
    usage: dict | None = None
    report_reasoning_tokens: bool = True
    vectors: list[list[float]] | None = None
    headers: dict[str, str] = field(default_factory=dict)
    tool_calls: list[dict] | None = None  # OpenAI's tool_calls, sent as the answer instead of (or with) content


@dataclass(frozen=True)
class Recorded:
    path: str
    headers: dict[str, str]
    body: dict

    @property
    def model(self) -> str:
        return self.body.get("model", "")

    @property
    def messages(self) -> list[dict]:
        return self.body.get("messages", [])

    @property
    def system(self) -> str:
        return next((m["content"] for m in self.messages if m["role"] == "system"), "")

    @property
    def last_user(self) -> str:
        return next((m["content"] for m in reversed(self.messages) if m["role"] == "user"), "")


Responder = Callable[[Recorded], Reply | None]


def words(text: str | None) -> int:
    return len((text or "").split())


def _chat_usage(request: Recorded, reply: Reply) -> dict:
    if reply.usage is not None:
        return reply.usage
    completion = words(reply.content) + words(reply.reasoning)
    usage = {"prompt_tokens": sum(words(m.get("content")) for m in request.messages),
             "completion_tokens": completion}
    usage["total_tokens"] = usage["prompt_tokens"] + completion
    if reply.report_reasoning_tokens and reply.reasoning:
        usage["completion_tokens_details"] = {"reasoning_tokens": words(reply.reasoning)}
    return usage


def _message(reply: Reply) -> dict:
    message = {"role": "assistant", "content": reply.content}
    if reply.reasoning is not None:
        message["reasoning_content"] = reply.reasoning
    if reply.tool_calls is not None:
        message["tool_calls"] = reply.tool_calls
    return message


def completion_body(request: Recorded, reply: Reply) -> dict:
    finish = "tool_calls" if reply.tool_calls else "stop"
    return {"id": "chatcmpl-test", "object": "chat.completion", "created": int(time.time()), "model": request.model,
            "choices": [{"index": 0, "message": _message(reply), "finish_reason": finish}],
            "usage": _chat_usage(request, reply)}


def stream_chunks(request: Recorded, reply: Reply) -> list[dict]:
    """Reasoning deltas first, then content deltas, then (when asked for) a usage-only chunk."""
    base = {"id": "chatcmpl-test", "object": "chat.completion.chunk", "created": int(time.time()),
            "model": request.model}
    deltas = [{"reasoning_content": piece + " "} for piece in (reply.reasoning or "").split()]
    deltas += [{"content": piece} for piece in _pieces(reply.content or "")]
    deltas += [{"tool_calls": [{**call, "index": i}]} for i, call in enumerate(reply.tool_calls or [])]
    chunks = [{**base, "choices": [{"index": 0, "delta": d, "finish_reason": None}]} for d in deltas]
    if request.body.get("stream_options", {}).get("include_usage"):
        chunks.append({**base, "choices": [], "usage": _chat_usage(request, reply)})
    return chunks


def _pieces(text: str) -> list[str]:
    return [text[i:i + 8] for i in range(0, len(text), 8)]


def embeddings_body(request: Recorded, reply: Reply | None) -> dict:
    texts = request.body["input"]
    texts = [texts] if isinstance(texts, str) else texts
    if reply is not None and reply.vectors is not None:
        vectors = reply.vectors
    else:
        vectors = HashingEmbedder(int(request.body.get("dimensions") or 1024)).embed(texts).tolist()
    tokens = sum(words(t) for t in texts)
    return {"object": "list", "model": request.model,
            "data": [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(vectors)],
            "usage": {"prompt_tokens": tokens, "total_tokens": tokens}}


class OpenAIServer:
    """Start with ``with OpenAIServer() as server:``; ``server.url`` is the ``/v1`` base URL."""

    def __init__(self, responder: Responder | None = None, embed_batch_limit: int = 10) -> None:
        self.responder = responder
        self.embed_batch_limit = embed_batch_limit
        self.requests: list[Recorded] = []
        self.chat_queue: deque[Reply] = deque()
        self.embed_queue: deque[Reply] = deque()
        self._lock = threading.Lock()
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.02},
                                        daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def __enter__(self) -> OpenAIServer:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def script(self, *replies: Reply) -> None:
        """Answers for the next chat requests, in order, before the responder is asked."""
        self.chat_queue.extend(replies)

    def script_embeddings(self, *replies: Reply) -> None:
        self.embed_queue.extend(replies)

    def chat_requests(self, model: str | None = None) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/chat/completions") and model in (None, r.model)]

    def embedding_requests(self) -> list[Recorded]:
        return [r for r in self.requests if r.path.endswith("/embeddings")]

    # -- called from the handler threads ---------------------------------------------------------
    def record(self, request: Recorded) -> None:
        with self._lock:
            self.requests.append(request)

    def next_chat(self, request: Recorded) -> Reply:
        with self._lock:
            if self.chat_queue:
                return self.chat_queue.popleft()
        scripted = self.responder(request) if self.responder else None
        json_mode = request.body.get("response_format", {}).get("type") == "json_object"
        return scripted or Reply(content="{}" if json_mode else "ok")

    def next_embedding(self) -> Reply | None:
        with self._lock:
            return self.embed_queue.popleft() if self.embed_queue else None


def _handler_for(server: OpenAIServer) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = json.loads(self.rfile.read(length) or b"{}")
            request = Recorded(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
            server.record(request)
            if self.path.endswith("/chat/completions"):
                self._chat(request, server.next_chat(request))
            elif self.path.endswith("/embeddings"):
                self._embeddings(request, server.next_embedding())
            else:
                self._json(404, {"error": {"message": f"no route {self.path}"}})

        def _chat(self, request: Recorded, reply: Reply) -> None:
            time.sleep(reply.delay)
            if reply.status != 200:
                self._json(reply.status, {"error": {"message": reply.error, "code": str(reply.status)}}, reply.headers)
            elif request.body.get("stream"):
                self._stream(stream_chunks(request, reply))
            else:
                self._json(200, completion_body(request, reply))

        def _embeddings(self, request: Recorded, reply: Reply | None) -> None:
            time.sleep(reply.delay if reply else 0)
            if reply is not None and reply.status != 200:
                self._json(reply.status, {"error": {"message": reply.error}}, reply.headers)
            elif len(request.body.get("input") or []) > server.embed_batch_limit:
                limit = server.embed_batch_limit
                self._json(400, {"error": {"message": f"batch size is invalid, it should not be larger than {limit}"}})
            else:
                self._json(200, embeddings_body(request, reply))

        def _json(self, status: int, payload: dict, headers: dict[str, str] | None = None) -> None:
            data = json.dumps(payload).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for name, value in (headers or {}).items():
                self.send_header(name, value)
            self.end_headers()
            self._write(data)

        def _stream(self, chunks: list[dict]) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
            events = "".join(f"data: {json.dumps(c)}\n\n" for c in chunks) + "data: [DONE]\n\n"
            self._write(events.encode())

        def _write(self, data: bytes) -> None:
            try:
                self.wfile.write(data)
            except (BrokenPipeError, ConnectionResetError):
                pass  # the client gave up (a timeout test); nothing to answer

    return Handler
