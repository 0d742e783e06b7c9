"""A scripted OpenAI-compatible chat server on 127.0.0.1: the LLM-path tests and `selftest` run litellm for real against it.

Each test scripts what the "provider" does: replies to assessment requests (not streamed) and
to follow-up requests (streamed as SSE `data: {...}` chunks ending in `data: [DONE]`) are taken
from two queues; an empty queue gives a plain default reply. A reply can also be an HTTP error,
a reply that comes too late, or a stream cut off mid-way. `stop()` takes the server down, so the
next connection is refused, as with a provider that is down.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections import deque
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

DEFAULT_VERDICT = {
    "key_points": [],
    "misconceptions": [],
    "flags": [],
    "depth": 0,
    "rationale": "Nothing in the answer matches the rubric yet.",
}
DEFAULT_FOLLOW_UP = "Could you walk me through how that works step by step?"


@dataclass
class Reply:
    """What the server does with one request."""

    content: str = ""
    status: int = 200
    delay_s: float = 0.0
    cut_after: int | None = None
    """Streamed replies only: close the connection after this many content chunks, without [DONE]."""
    prompt_tokens: int = 120
    completion_tokens: int = 30
    error: str = ""
    headers: dict[str, str] = field(default_factory=dict)


def verdict(**fields: Any) -> Reply:
    """A well-formed assessment reply: DEFAULT_VERDICT with these fields replaced."""
    return Reply(content=json.dumps({**DEFAULT_VERDICT, **fields}))


def text(content: str, **kwargs: Any) -> Reply:
    return Reply(content=content, **kwargs)


def failure(status: int, message: str = "scripted failure", **kwargs: Any) -> Reply:
    return Reply(status=status, error=message, **kwargs)


class LLMServer:
    def __init__(self) -> None:
        self.assess_replies: deque[Reply] = deque()
        self.follow_up_replies: deque[Reply] = deque()
        self.requests: list[dict[str, Any]] = []
        """Every request body received, in order."""
        self.responder: Callable[[dict[str, Any]], Reply | None] | None = None
        """Replies computed from the request (a model that reads the answer), before the queues."""
        self._server = _QuietServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
        self.port = self._server.server_address[1]
        self.running = True

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def script(self, assess: Iterable[Reply] = (), follow_up: Iterable[Reply] = ()) -> None:
        self.assess_replies.extend(assess)
        self.follow_up_replies.extend(follow_up)

    def next_reply(self, streamed: bool, body: dict[str, Any] | None = None) -> Reply:
        computed = self.responder(body or {}) if self.responder else None
        if computed is not None:
            return computed
        queue = self.follow_up_replies if streamed else self.assess_replies
        if queue:
            return queue.popleft()
        return text(DEFAULT_FOLLOW_UP) if streamed else verdict()

    def stop(self) -> None:
        if self.running:
            self.running = False
            self._server.shutdown()
            self._server.server_close()


class _QuietServer(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client that gave up (a timeout test) leaves a broken pipe: expected, not worth a traceback."""


class _ScriptedHandler(BaseHTTPRequestHandler):
    """Answers each request as the `LLMServer` it serves has scripted."""

    scripted: LLMServer
    protocol_version = "HTTP/1.1"

    def log_message(self, *args: Any) -> None:  # keep test output clean
        pass

    def do_POST(self) -> None:
        body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
        self.scripted.requests.append(body)
        streamed = bool(body.get("stream"))
        reply = self.scripted.next_reply(streamed, body)
        time.sleep(reply.delay_s)
        if reply.status != 200:
            self._send_json(
                reply.status,
                {"error": {"message": reply.error, "type": "scripted", "code": str(reply.status)}},
                reply.headers,
            )
        elif streamed:
            self._stream(body, reply)
        else:
            self._send_json(200, _completion(body, reply), reply.headers)

    def _send_json(self, status: int, payload: dict[str, Any], headers: dict[str, str]) -> None:
        data = json.dumps(payload).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Connection", "close")
        for name, value in headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _stream(self, body: dict[str, Any], reply: Reply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Connection", "close")
        self.end_headers()
        pieces = _pieces(reply.content)
        for i, piece in enumerate(pieces):
            if reply.cut_after is not None and i >= reply.cut_after:
                self.wfile.flush()
                self.close_connection = True
                return  # no terminating chunk: the peer sees an incomplete body
            self._event(_chunk(body, {"content": piece}, None))
        self._event(_chunk(body, {}, "stop"))
        if (body.get("stream_options") or {}).get("include_usage"):
            self._event({**_chunk(body, {}, None), "choices": [], "usage": _usage(reply)})
        self._write_chunk(b"data: [DONE]\n\n")
        self._write_chunk(b"")

    def _event(self, payload: dict[str, Any]) -> None:
        self._write_chunk(f"data: {json.dumps(payload)}\n\n".encode())

    def _write_chunk(self, data: bytes) -> None:
        self.wfile.write(f"{len(data):x}\r\n".encode() + data + b"\r\n")
        self.wfile.flush()


def _handler_for(server: LLMServer) -> type[BaseHTTPRequestHandler]:
    """A handler class bound to `server` (the HTTP server makes one handler per request)."""

    class Handler(_ScriptedHandler):
        scripted = server

    return Handler


def _pieces(content: str) -> list[str]:
    """Word-sized pieces, the way a model streams tokens."""
    words = content.split(" ")
    return [w + (" " if i < len(words) - 1 else "") for i, w in enumerate(words)]


def _usage(reply: Reply) -> dict[str, int]:
    return {
        "prompt_tokens": reply.prompt_tokens,
        "completion_tokens": reply.completion_tokens,
        "total_tokens": reply.prompt_tokens + reply.completion_tokens,
    }


def _completion(body: dict[str, Any], reply: Reply) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "test"),
        "choices": [{"index": 0, "message": {"role": "assistant", "content": reply.content}, "finish_reason": "stop"}],
        "usage": _usage(reply),
    }


def _chunk(body: dict[str, Any], delta: dict[str, str], finish: str | None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-scripted",
        "object": "chat.completion.chunk",
        "created": int(time.time()),
        "model": body.get("model", "test"),
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


class Hanging:
    """A provider that accepts every connection and never answers (a hung model server)."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.listener.getsockname()[1]}/v1"
        self.held: list = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:  # closed
                return
            self.held.append(connection)

    def close(self) -> None:
        self.listener.close()
        for connection in self.held:
            connection.close()
