"""The ASGI app of ``zoo gohr serve`` (Starlette): consent page, play page, JSON API, final page.

Routes: ``GET /`` the consent and instructions page (replaceable: any HTML page whose form posts
``player`` and ``consent`` to ``/start``); ``POST /start`` opens a session (a cookie) and goes to
``/play``; ``GET /api/state`` the player's view; ``POST /api/move`` ``{"piece": ID, "bucket": B}``
judges a move; ``GET /done`` the final page. Bodies are capped at :data:`MAX_BODY` bytes; a bad
request gets a 4xx status and a message and changes nothing.
"""

from __future__ import annotations

import html
import json
import secrets
from pathlib import Path
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .experiment import Stage
from .session import BadMove, PlayerSession
from .store import TranscriptStore, valid_player

STATIC = Path(__file__).with_name("static")
MAX_BODY = 4096
COOKIE = "gohr_session"
TOKENS_PER_PLAYER = 4  # browsers (or tabs) one player may have open; the oldest is signed out


class Experiment:
    """The live state of a server: the stages, the store and the players' sessions (by cookie token)."""

    def __init__(self, stages: list[Stage], store: TranscriptStore, *, max_players: int = 10_000):
        self.stages, self.store, self.max_players = stages, store, max_players
        self.rule_paths = {stage.rule: store.add_rule(stage.rule) for stage in stages}
        self.by_token: dict[str, PlayerSession] = {}
        self.by_player: dict[str, PlayerSession] = {}
        self.tokens: dict[str, list[str]] = {}  # by player, oldest first

    def open(self, player: str) -> str:
        """A new token for `player`; a player already playing keeps their session (and their board)."""
        session = self.by_player.get(player)
        if session is None:
            if len(self.by_player) >= self.max_players:
                raise HTTPException(503, f"the server holds its maximum of {self.max_players} players")
            session = self.by_player[player] = PlayerSession(player, self.stages, self.store, self.rule_paths)
        token = secrets.token_urlsafe(24)
        self.by_token[token] = session
        tokens = self.tokens.setdefault(player, [])
        tokens.append(token)
        if len(tokens) > TOKENS_PER_PLAYER:
            del self.by_token[tokens.pop(0)]
        return token

    def session(self, request: Request) -> PlayerSession:
        session = self.by_token.get(request.cookies.get(COOKIE, ""))
        if session is None:
            raise HTTPException(401, "no session: start at the first page")
        return session


async def _body(request: Request) -> bytes:
    """The request body, refused (413) beyond MAX_BODY bytes without reading the rest."""
    declared = request.headers.get("content-length")
    if declared is not None and (not declared.isdigit() or int(declared) > MAX_BODY):
        raise HTTPException(413, f"request body over {MAX_BODY} bytes")
    body = b""
    async for chunk in request.stream():
        body += chunk
        if len(body) > MAX_BODY:
            raise HTTPException(413, f"request body over {MAX_BODY} bytes")
    return body


def create_app(experiment: Experiment, consent_page: Path | None = None) -> Starlette:
    """The web app of an experiment; ``consent_page`` replaces the default consent and instructions page."""
    consent_html = (consent_page or STATIC / "consent.html").read_text(encoding="utf-8")
    done_template = (STATIC / "done.html").read_text(encoding="utf-8")

    async def consent(request: Request) -> Response:
        return HTMLResponse(consent_html)

    async def start(request: Request) -> Response:
        if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
            raise HTTPException(415, "post the consent form (application/x-www-form-urlencoded)")
        try:
            form = parse_qs((await _body(request)).decode("utf-8"), max_num_fields=8, strict_parsing=False)
        except (UnicodeDecodeError, ValueError) as exc:
            raise HTTPException(400, f"unreadable form: {exc}") from None
        if form.get("consent", [""])[0] not in ("yes", "on", "true"):
            raise HTTPException(400, "consent is required to take part: tick the box on the first page")
        player = form.get("player", [""])[0].strip() or f"p-{secrets.token_hex(4)}"
        if not valid_player(player):
            raise HTTPException(400, "a player id is 1 to 64 letters, digits, '.', '_' or '-'")
        response = RedirectResponse("/play", status_code=303)
        response.set_cookie(COOKIE, experiment.open(player), httponly=True, samesite="strict")
        return response

    async def play(request: Request) -> Response:
        if request.cookies.get(COOKIE, "") not in experiment.by_token:
            return RedirectResponse("/", status_code=303)
        return HTMLResponse((STATIC / "play.html").read_text(encoding="utf-8"))

    async def state(request: Request) -> Response:
        return JSONResponse(experiment.session(request).view())

    async def move(request: Request) -> Response:
        session = experiment.session(request)
        try:
            payload = json.loads(await _body(request))
        except (UnicodeDecodeError, json.JSONDecodeError) as exc:
            raise HTTPException(400, f"the body must be JSON: {exc}") from None
        if not isinstance(payload, dict) or set(payload) != {"piece", "bucket"}:
            raise HTTPException(400, 'a move is {"piece": PIECE_ID, "bucket": 0..3}')
        try:
            outcome = session.move(payload["piece"], payload["bucket"])
        except BadMove as exc:
            raise HTTPException(409 if session.finished else 400, str(exc)) from None
        return JSONResponse({**outcome, "state": session.view()})

    async def done(request: Request) -> Response:
        session = experiment.session(request)
        return HTMLResponse(done_template.replace("{player}", html.escape(session.player)))

    async def error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code)
        return PlainTextResponse(f"{exc.status_code}: {exc.detail}\n", status_code=exc.status_code)

    routes = [Route("/", consent), Route("/start", start, methods=["POST"]), Route("/play", play),
              Route("/api/state", state), Route("/api/move", move, methods=["POST"]), Route("/done", done),
              Mount("/static", StaticFiles(directory=STATIC / "assets"), name="static")]
    return Starlette(routes=routes, exception_handlers={HTTPException: error})


def serve(experiment: Experiment, *, host: str, port: int, consent_page: Path | None = None) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(experiment, consent_page), host=host, port=port, log_level="info")
