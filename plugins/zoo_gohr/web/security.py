"""What keeps a study server safe on the open internet: signed participant tokens, sign-in limits per
client, an Origin check on every state-changing request, security headers, and a JSON reader that
refuses deep nesting.

Tokens are signed with ``itsdangerous`` under a key kept in the store (``secret.key``, readable by its
owner only), so they survive a restart; a token names a participant and the nonce issued at their
sign-in, so knowing a participant's id gives nothing.
"""

from __future__ import annotations

import json
import os
import secrets
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from itsdangerous import BadData, URLSafeTimedSerializer
from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from zoo import ZooError

STATE_CHANGING = frozenset({"POST", "PUT", "PATCH", "DELETE"})
CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
       "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'")
HEADERS = [(b"content-security-policy", CSP.encode()), (b"x-content-type-options", b"nosniff"),
           (b"referrer-policy", b"same-origin"), (b"x-frame-options", b"DENY"),
           (b"cross-origin-opener-policy", b"same-origin")]


def signing_key(root: Path) -> str:
    """The store's signing key, made (readable by its owner only) on first use."""
    path = Path(root) / "secret.key"
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        key = path.read_text(encoding="ascii").strip()
        if len(key) < 32:
            raise ZooError(f"{path}: the signing key is damaged (shorter than 32 characters); delete it to make a "
                           "new one (every participant's link then stops working)") from None
        return key
    key = secrets.token_hex(32)
    with os.fdopen(fd, "w", encoding="ascii") as handle:
        handle.write(key + "\n")
        handle.flush()
        os.fsync(handle.fileno())
    return key


class Tokens:
    """Signed participant tokens: ``issue(player, nonce)`` and ``read(token) -> (player, nonce) | None``."""

    def __init__(self, key: str, max_age: float):
        self.serializer, self.max_age = URLSafeTimedSerializer(key, salt="zoo-gohr-participant"), max_age

    def issue(self, player: str, nonce: str) -> str:
        return self.serializer.dumps([player, nonce])

    def read(self, token: str) -> tuple[str, str] | None:
        try:
            player, nonce = self.serializer.loads(token, max_age=self.max_age)
        except (BadData, ValueError, TypeError):
            return None
        return (player, nonce) if isinstance(player, str) and isinstance(nonce, str) else None


class RateLimit:
    """At most ``limit`` events per client in any ``window`` seconds; remembers at most ``clients`` clients
    (the longest quiet are forgotten first)."""

    def __init__(self, limit: int, window: float, *, clients: int = 100_000, clock: Callable[[], float] = time.monotonic):
        self.limit, self.window, self.clients, self.clock = limit, window, clients, clock
        self.seen: OrderedDict[str, deque[float]] = OrderedDict()

    def allow(self, client: str) -> bool:
        """Count an event of `client`; False (not counted) when it is over its limit."""
        now = self.clock()
        stamps = self.seen.pop(client, None) or deque()
        while stamps and stamps[0] <= now - self.window:
            stamps.popleft()
        allowed = len(stamps) < self.limit
        if allowed:
            stamps.append(now)
        self.seen[client] = stamps
        while len(self.seen) > self.clients:
            self.seen.popitem(last=False)
        return allowed


class Guard:
    """ASGI middleware: security headers on every response, and state-changing requests refused (403) unless
    their Origin (or, without one, their Referer) is the server's own origin or one of ``origins``."""

    def __init__(self, app: ASGIApp, origins: tuple[str, ...] = ()):
        self.app, self.origins = app, origins

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def with_headers(message: Message) -> None:
            if message["type"] == "http.response.start":
                message.setdefault("headers", [])
                message["headers"] = [*message["headers"], *HEADERS]
            await send(message)

        if scope["method"] in STATE_CHANGING and not self._same_origin(scope):
            refusal = PlainTextResponse("403: cross-origin request refused (its Origin is not this server's)\n",
                                        status_code=403)
            await refusal(scope, receive, with_headers)
            return
        await self.app(scope, receive, with_headers)

    def _same_origin(self, scope: Scope) -> bool:
        headers = Headers(scope=scope)
        origin = headers.get("origin")
        if origin is None:
            referer = headers.get("referer", "")
            parts = referer.split("/")
            origin = "/".join(parts[:3]) if len(parts) >= 3 and parts[1] == "" else None
        if origin is None or origin == "null":
            return False
        own = f"{scope.get('scheme', 'http')}://{headers.get('host', '')}"
        return origin in self.origins if self.origins else origin == own


class NestedJSON(ValueError):
    """A JSON body nested deeper than allowed."""


def bounded_json(body: bytes, max_depth: int = 8) -> Any:
    """The JSON document in `body`, refused (NestedJSON) when arrays and objects nest deeper than `max_depth`;
    the depth is counted before parsing, so no input can exhaust the parser's recursion."""
    text = body.decode("utf-8")
    depth, in_string, escaped = 0, False, False
    for char in text:
        if in_string:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == '"':
                in_string = False
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            if depth > max_depth:
                raise NestedJSON(f"JSON nested deeper than {max_depth} levels")
        elif char in "]}":
            depth -= 1
    return json.loads(text)
