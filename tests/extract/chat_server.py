"""A small OpenAI-compatible chat-completions server on 127.0.0.1 for tests: real HTTP, scripted replies
(text, or tool calls for the agent loop)."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer


@dataclass
class Behaviour:
    text: str = ""
    status: int = 200
    headers: dict[str, str] = field(default_factory=dict)
    delay_s: float = 0.0
    tool_calls: list[tuple[str, dict[str, object]]] = field(default_factory=list)  # (tool name, arguments)


def reply(text: str) -> Behaviour:
    return Behaviour(text=text)


def reply_json(payload: dict[str, object]) -> Behaviour:
    return Behaviour(text=json.dumps(payload))


def call_tools(*calls: tuple[str, dict[str, object]]) -> Behaviour:
    return Behaviour(tool_calls=list(calls))


def _message(behaviour: Behaviour, turn: int) -> dict[str, object]:
    if not behaviour.tool_calls:
        return {"role": "assistant", "content": behaviour.text}
    return {"role": "assistant", "content": behaviour.text or None, "tool_calls": [
        {"id": f"call-{turn}-{i}", "type": "function", "function": {"name": name, "arguments": json.dumps(args)}}
        for i, (name, args) in enumerate(behaviour.tool_calls)]}


class ChatServer:
    def __init__(self) -> None:
        self.script: list[Behaviour] = []
        self.fallback: Callable[[dict[str, object]], Behaviour] = lambda request: reply_json({"entities": [], "relations": [], "statements": []})
        self.requests: list[dict[str, object]] = []
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                return

            def do_POST(self) -> None:  # noqa: N802 (the http.server API)
                length = int(self.headers.get("content-length", 0))
                request = json.loads(self.rfile.read(length) or b"{}")
                server.requests.append({"path": self.path, **request})
                behaviour = server.script.pop(0) if server.script else server.fallback(request)
                time.sleep(behaviour.delay_s)
                if behaviour.status != 200:
                    body = json.dumps({"error": {"message": behaviour.text or "error", "type": "test", "code": behaviour.status}})
                else:
                    body = json.dumps({
                        "id": f"chatcmpl-{len(server.requests)}", "object": "chat.completion", "created": 0,
                        "model": request.get("model"),
                        "choices": [{"index": 0, "message": _message(behaviour, len(server.requests)),
                                     "finish_reason": "tool_calls" if behaviour.tool_calls else "stop"}],
                        "usage": {"prompt_tokens": 100, "completion_tokens": 20, "total_tokens": 120},
                    })
                try:
                    self.send_response(behaviour.status)
                    self.send_header("content-type", "application/json")
                    for key, value in behaviour.headers.items():
                        self.send_header(key, value)
                    self.end_headers()
                    self.wfile.write(body.encode())
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up (a timeout test)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"

    def __enter__(self) -> ChatServer:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()
