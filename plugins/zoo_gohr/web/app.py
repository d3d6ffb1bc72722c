"""The ASGI app of ``zoo gohr serve`` (Starlette): consent, practice, rules, questions, completion.

Routes: ``GET /`` the consent page (the study's consent text, or a replacement page whose form posts
``player`` and ``consent`` to ``/start``); ``POST /start`` records the consent and signs the
participant in (a signed token in an HttpOnly, SameSite=Strict cookie) and goes to ``/play``;
``GET /api/state`` what the participant is to do (``phase``: play, questions, final, done) and sees;
``POST /api/move`` ``{"piece": ID, "bucket": B}`` judges a move; ``POST /api/answers``
``{"answers": {ID: VALUE}}`` answers the questions asked; ``GET /done`` the completion code (or the
redirect to the recruiting platform); ``/admin`` the researcher's side (see ``admin``).

A participant is a principal: only the token issued at their sign-in reaches their games, and a
second sign-in under a known id is refused. Live sessions are a cache of what the store holds (every
counted move is on disk): a session idle for ``idle_seconds`` or pushed out by ``max_sessions``
newer ones is rebuilt from the store when its participant returns, so sign-ins never run out.
Bodies are capped at :data:`MAX_BODY` bytes and JSON at :data:`MAX_DEPTH` levels; a bad request
gets a 4xx status and a message and changes nothing.
"""

from __future__ import annotations

import hashlib
import html
import secrets
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

from starlette.applications import Starlette
from starlette.exceptions import HTTPException
from starlette.middleware import Middleware
from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from zoo import ZooError, now

from .participants import Participants
from .security import Guard, NestedJSON, RateLimit, Tokens, bounded_json, signing_key
from .session import BadMove, NotStored, PlayerSession
from .store import TranscriptStore, valid_player
from .study import Study

STATIC = Path(__file__).with_name("static")
MAX_BODY = 4096
MAX_DEPTH = 8
COOKIE = "gohr_session"
WEEK = 7 * 24 * 3600


@dataclass
class Live:
    """A signed-in participant's session, their record, and when they were last seen."""

    session: PlayerSession
    record: dict[str, Any]
    seen: float
    write_failures: int = 0
    skipped_boards: bool = False  # boards no piece could leave were stored at this request: a move was not for this board


class Experiment:
    """The live state of a server: the study, the store, the participants and their cached sessions."""

    def __init__(self, study: Study, store: TranscriptStore, *, max_sessions: int = 2000,
                 idle_seconds: float = 1800, token_seconds: float = WEEK, sign_ins: tuple[int, float] = (10, 60),
                 clock: Callable[[], float] = time.monotonic):
        self.study, self.store, self.clock = study, store, clock
        self.max_sessions, self.idle_seconds = max_sessions, idle_seconds
        stages = study.rule_stages + ([study.practice] if study.practice else [])
        self.rule_paths = {stage.rule: store.add_rule(stage.rule) for stage in stages}
        self.participants = Participants(store)
        self.tokens = Tokens(signing_key(store.root), token_seconds)
        self.sign_in_limit = RateLimit(*sign_ins, clock=clock)
        self.live: OrderedDict[str, Live] = OrderedDict()

    def sign_in(self, player: str | None, consent_version: str) -> str:
        """Record a new participant's consent; returns their token. A known or withdrawn id is refused."""
        player = player or f"p-{secrets.token_hex(6)}"
        if not valid_player(player):
            raise HTTPException(400, "a participant id is 1 to 64 letters, digits, '.', '_' or '-'")
        if player in self.participants.withdrawn():
            raise HTTPException(403, "this participant id has withdrawn from the study")
        if self.participants.get(player) is not None:
            raise HTTPException(409, "this participant id has already signed in; continue in the browser you "
                                     "started in, or ask the researcher")
        nonce = secrets.token_urlsafe(16)
        try:
            number = self.participants.next_number()
            self.participants.create(player, consent_version=consent_version, order=self.study.order(number),
                                     number=number, nonce=nonce, study=self.study.title)
        except OSError as exc:
            raise HTTPException(503, f"your consent could not be recorded ({exc.strerror or exc}); nothing was "
                                     "stored: please try again later") from None
        return self.tokens.issue(player, nonce)

    def participant(self, request: Request) -> Live:
        """The signed-in participant of a request (401 without a valid token)."""
        claim = self.tokens.read(request.cookies.get(COOKIE, ""))
        if claim is None:
            raise HTTPException(401, "not signed in: start at the first page")
        player, nonce = claim
        moment = self.clock()
        self._expire(moment)
        live = self.live.pop(player, None)
        if live is None:
            record = self.participants.get(player)
            if record is None:
                raise HTTPException(401, "not signed in: start at the first page")
            live = Live(PlayerSession(player, self.study.stages(record["order"]), self.store, self.rule_paths),
                        record, moment)
        if not secrets.compare_digest(live.record["nonce"], nonce):
            raise HTTPException(401, "not signed in: start at the first page")
        live.seen = moment
        self.live[player] = live
        while len(self.live) > self.max_sessions:
            self.live.popitem(last=False)
        try:
            live.skipped_boards = live.session.settle()
        except NotStored as exc:
            live.write_failures += 1
            raise HTTPException(503, str(exc)) from None
        return live

    def _expire(self, moment: float) -> None:
        while self.live and moment - next(iter(self.live.values())).seen > self.idle_seconds:
            self.live.popitem(last=False)

    def drop(self, player: str) -> None:
        self.live.pop(player, None)

    def phase(self, live: Live) -> tuple[str, int | None]:
        """What the participant is to do: ``play``, ``questions`` (after the rule of the given stage), ``final``
        or ``done``."""
        session = live.session
        if self.study.rule_questions:
            for index in range(min(session.stage, len(session.stages))):
                stage = session.stages[index]
                if not stage.practice and stage.rule not in live.record["answers"]:
                    return "questions", index
        if not session.finished:
            return "play", None
        if self.study.final_questions and live.record["final"] is None:
            return "final", None
        return "done", None

    def view(self, live: Live) -> dict[str, Any]:
        phase, index = self.phase(live)
        view = {**live.session.view(), "phase": phase}
        rules = sum(not stage.practice for stage in live.session.stages)
        if phase == "questions":
            done = sum(not stage.practice for stage in live.session.stages[:index + 1])
            view.update(rule_number=done, rules=rules, questions=[q.model_dump() for q in self.study.rule_questions])
            view.pop("pieces", None)
        elif phase == "final":
            view.update(questions=[q.model_dump() for q in self.study.final_questions])
        elif phase == "play":
            stage = live.session.stages[live.session.stage]
            view["rule_number"] = None if stage.practice else \
                sum(not s.practice for s in live.session.stages[:live.session.stage + 1])
            view["rules"] = rules
        return view

    def answer(self, live: Live, answers: Any) -> None:
        """Store the answers to the questions the participant is asked now (all or nothing)."""
        phase, index = self.phase(live)
        if phase not in ("questions", "final"):
            raise HTTPException(409, "no questions are asked now")
        questions = self.study.rule_questions if phase == "questions" else self.study.final_questions
        if not isinstance(answers, dict) or not set(answers) <= {q.id for q in questions}:
            raise HTTPException(400, f'answers are {{"answers": {{ID: VALUE}}}} with the ids '
                                     f'{", ".join(q.id for q in questions)}')
        try:
            checked = {q.id: q.check(answers.get(q.id)) for q in questions}
        except ValueError as exc:
            raise HTTPException(400, str(exc)) from None
        record = {**live.record, "answers": dict(live.record["answers"])}
        if phase == "questions":
            record["answers"][live.session.stages[index].rule] = checked
        else:
            record["final"] = checked
        self._save_record(live, record)

    def complete(self, live: Live) -> None:
        if live.record["completed"] is None:
            self._save_record(live, {**live.record, "completed": now()})

    def _save_record(self, live: Live, record: dict[str, Any]) -> None:
        try:
            self.participants.save(record)
        except OSError as exc:
            live.write_failures += 1
            raise HTTPException(503, f"your answers could not be saved ({exc.strerror or exc}); they were not "
                                     "recorded: please try again") from None
        live.record = record


async def read_body(request: Request) -> bytes:
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


async def read_form(request: Request) -> dict[str, list[str]]:
    """An urlencoded form of at most 8 fields (415 for another content type, 400 for an unreadable one)."""
    if request.headers.get("content-type", "").split(";")[0].strip() != "application/x-www-form-urlencoded":
        raise HTTPException(415, "post the form (application/x-www-form-urlencoded)")
    try:
        return parse_qs((await read_body(request)).decode("utf-8"), max_num_fields=8, strict_parsing=False)
    except (UnicodeDecodeError, ValueError) as exc:
        raise HTTPException(400, f"unreadable form: {exc}") from None


async def read_json(request: Request) -> Any:
    try:
        return bounded_json(await read_body(request), MAX_DEPTH)
    except NestedJSON as exc:
        raise HTTPException(400, f"the body must be JSON of at most {MAX_DEPTH} levels ({exc})") from None
    except (UnicodeDecodeError, ValueError) as exc:
        raise HTTPException(400, f"the body must be JSON: {exc}") from None


def study_consent_page(study: Study, player: str) -> str:
    """The consent page of a study (its text, paragraph by paragraph), with the participant id from the link."""
    paragraphs = "\n".join(f"<p>{html.escape(p.strip())}</p>" for p in study.consent.text.split("\n\n") if p.strip())
    return (STATIC / "consent.html").read_text(encoding="utf-8").format(
        title=html.escape(study.title), paragraphs=paragraphs, version=html.escape(study.consent.version),
        player=html.escape(player, quote=True))


def create_app(experiment: Experiment, consent_page: Path | None = None, *, admin_token: str | None = None,
               origins: tuple[str, ...] = ()) -> Starlette:
    """The web app of an experiment. ``consent_page`` replaces the consent page (its version recorded with
    each consent is ``page-`` and the page's hash); ``admin_token`` opens ``/admin``; ``origins`` are the
    origins a state-changing request may come from (default: the server's own, from the Host header)."""
    from .admin import admin_routes

    study = experiment.study
    custom = consent_page.read_text(encoding="utf-8") if consent_page else None
    version = f"page-{hashlib.sha256(custom.encode()).hexdigest()[:12]}" if custom else study.consent.version
    done_template = (STATIC / "done.html").read_text(encoding="utf-8")

    async def consent(request: Request) -> Response:
        given = request.query_params.get("player", "")
        return HTMLResponse(custom if custom is not None else study_consent_page(study, given if valid_player(given) else ""))

    async def start(request: Request) -> Response:
        client = request.client.host if request.client else "unknown"
        if not experiment.sign_in_limit.allow(client):
            raise HTTPException(429, "too many sign-ins from your address; wait a minute and try again")
        form = await read_form(request)
        if form.get("consent", [""])[0] not in ("yes", "on", "true"):
            raise HTTPException(400, "consent is required to take part: tick the box on the first page")
        token = experiment.sign_in(form.get("player", [""])[0].strip() or None, version)
        response = RedirectResponse("/play", status_code=303)
        response.set_cookie(COOKIE, token, max_age=int(experiment.tokens.max_age), httponly=True, samesite="strict",
                            secure=request.url.scheme == "https" or any(o.startswith("https:") for o in origins))
        return response

    async def play(request: Request) -> Response:
        try:
            experiment.participant(request)
        except HTTPException:
            return RedirectResponse("/", status_code=303)
        return HTMLResponse((STATIC / "play.html").read_text(encoding="utf-8"))

    async def state(request: Request) -> Response:
        return JSONResponse(experiment.view(experiment.participant(request)))

    async def move(request: Request) -> Response:
        live = experiment.participant(request)
        payload = await read_json(request)
        if not isinstance(payload, dict) or set(payload) != {"piece", "bucket"}:
            raise HTTPException(400, 'a move is {"piece": PIECE_ID, "bucket": 0..3}')
        if experiment.phase(live)[0] != "play":
            raise HTTPException(409, "no board is in play now: answer the questions first")
        if live.skipped_boards:
            raise HTTPException(409, "that board could not be played (no piece could leave it); here is the next one")
        try:
            outcome = live.session.move(payload["piece"], payload["bucket"])
        except BadMove as exc:
            raise HTTPException(409 if live.session.finished else 400, str(exc)) from None
        except NotStored as exc:
            live.write_failures += 1
            raise HTTPException(503, str(exc)) from None
        return JSONResponse({**outcome, "state": experiment.view(live)})

    async def answers(request: Request) -> Response:
        live = experiment.participant(request)
        payload = await read_json(request)
        if not isinstance(payload, dict) or set(payload) != {"answers"}:
            raise HTTPException(400, 'answers are {"answers": {ID: VALUE}}')
        experiment.answer(live, payload["answers"])
        return JSONResponse({"state": experiment.view(live)})

    async def done(request: Request) -> Response:
        live = experiment.participant(request)
        if experiment.phase(live)[0] != "done":
            return RedirectResponse("/play", status_code=303)
        experiment.complete(live)
        completion = study.completion
        if completion is not None and completion.redirect:
            return RedirectResponse(completion.redirect, status_code=303)
        code = (f'<p>Your completion code is <strong id="code">{html.escape(completion.code)}</strong>. '
                "Enter it on the site that sent you here.</p>") if completion is not None else ""
        return HTMLResponse(done_template.format(player=html.escape(live.session.player), code=code))

    async def error(request: Request, exc: HTTPException) -> Response:
        if request.url.path.startswith("/api/") or request.url.path.startswith("/admin/"):
            return JSONResponse({"error": exc.detail}, status_code=exc.status_code, headers=exc.headers)
        return PlainTextResponse(f"{exc.status_code}: {exc.detail}\n", status_code=exc.status_code,
                                 headers=exc.headers)

    async def store_error(request: Request, exc: ZooError) -> Response:
        return PlainTextResponse(f"500: the study's store is damaged: {exc}\n", status_code=500)

    routes = [Route("/", consent), Route("/start", start, methods=["POST"]), Route("/play", play),
              Route("/api/state", state), Route("/api/move", move, methods=["POST"]),
              Route("/api/answers", answers, methods=["POST"]), Route("/done", done),
              *admin_routes(experiment, admin_token),
              Mount("/static", StaticFiles(directory=STATIC / "assets"), name="static")]
    return Starlette(routes=routes, middleware=[Middleware(Guard, origins=origins)],
                     exception_handlers={HTTPException: error, ZooError: store_error})


def serve(experiment: Experiment, *, host: str, port: int, consent_page: Path | None = None,
          admin_token: str | None = None, origins: tuple[str, ...] = ()) -> None:
    """Run the app with uvicorn until interrupted (behind a proxy, uvicorn reads X-Forwarded-For from
    the addresses in FORWARDED_ALLOW_IPS)."""
    import uvicorn

    uvicorn.run(create_app(experiment, consent_page, admin_token=admin_token, origins=origins), host=host,
                port=port, log_level="info", proxy_headers=True)
