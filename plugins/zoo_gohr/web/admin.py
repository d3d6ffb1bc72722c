"""The researcher's side of ``zoo gohr serve``: who is where, the exports, and withdrawal.

Every ``/admin`` route needs the admin token (``Authorization: Bearer TOKEN``, or HTTP Basic with the
token as password, which a browser asks for), compared in constant time; without a token configured
the routes answer 404. ``GET /admin`` lists the participants (stage, boards done, moves, disallowed
moves, failed writes); ``GET /admin/export/{transcripts,answers,consents}.{csv,json}`` exports the
store; ``POST /admin/withdraw`` (form field ``player``) removes a participant everywhere.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import secrets
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import HTMLResponse, PlainTextResponse, RedirectResponse, Response
from starlette.routing import Route

from zoo import ZooError

EXPORTS = ("transcripts", "answers", "consents")
FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def authorized(request: Request, token: str) -> bool:
    """Whether the request carries the admin token (Bearer, or Basic with it as the password)."""
    scheme, _, value = request.headers.get("authorization", "").partition(" ")
    if scheme.lower() == "basic":
        try:
            value = base64.b64decode(value, validate=True).decode("utf-8").partition(":")[2]
        except (ValueError, UnicodeDecodeError):
            return False
    elif scheme.lower() != "bearer":
        return False
    return secrets.compare_digest(value.encode(), token.encode())


def consent_rows(experiment) -> list[dict[str, Any]]:
    rules = experiment.study.rule_stages
    return [{"player": r["player"], "number": r["number"], "study": r["study"], "consent_given": r["consent"]["given"],
             "consent_at": r["consent"]["at"], "consent_version": r["consent"]["version"],
             "rule_order": ";".join(rules[k].rule for k in r["order"]), "completed": r["completed"] or ""}
            for r in experiment.participants.all()]


def answer_rows(experiment) -> list[dict[str, Any]]:
    rows = []
    for record in experiment.participants.all():
        scopes = [*record["answers"].items(), *([("final", record["final"])] if record["final"] else [])]
        for scope, answers in scopes:
            rows += [{"player": record["player"], "after": scope, "question": question, "answer": answer}
                     for question, answer in answers.items()]
    return rows


def move_rows(episodes: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every move of every stored board; stages, boards, moves and buckets numbered from 1 as on the page
    (bucket 1 top left .. 4 bottom left), pieces by the engine's id."""
    return [{"player": e["player"], "stage": e["stage"] + 1, "rule": e["rule"], "practice": bool(e.get("practice")),
             "board": e["episode"] + 1, "move": n, "piece_id": s["move"]["id"], "bucket": s["move"]["bucket"] + 1,
             "accepted": s["accepted"], "code": s["code"], "ms": s["ms"]}
            for e in episodes for n, s in enumerate(e["steps"], 1)]


def as_csv(rows: list[dict[str, Any]], columns: list[str]) -> str:
    """CSV text; a cell a spreadsheet would run as a formula is prefixed with a quote."""
    out = io.StringIO()
    writer = csv.DictWriter(out, columns, lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({key: "'" + value if isinstance(value, str) and value.startswith(FORMULA_START) else value
                         for key, value in row.items()})
    return out.getvalue()


COLUMNS = {"consents": ["player", "number", "study", "consent_given", "consent_at", "consent_version", "rule_order",
                        "completed"],
           "answers": ["player", "after", "question", "answer"],
           "transcripts": ["player", "stage", "rule", "practice", "board", "move", "piece_id", "bucket", "accepted",
                           "code", "ms"]}


def export(experiment, kind: str, fmt: str) -> Response:
    episodes = list(experiment.store.episodes())
    if fmt == "json":
        data = {"transcripts": episodes, "answers": answer_rows(experiment), "consents": consent_rows(experiment)}[kind]
        return Response(json.dumps(data, indent=1, sort_keys=True) + "\n", media_type="application/json",
                        headers={"content-disposition": f'attachment; filename="{kind}.json"'})
    rows = {"transcripts": lambda: move_rows(episodes), "answers": lambda: answer_rows(experiment),
            "consents": lambda: consent_rows(experiment)}[kind]()
    return Response(as_csv(rows, COLUMNS[kind]), media_type="text/csv; charset=utf-8",
                    headers={"content-disposition": f'attachment; filename="{kind}.csv"'})


def overview(experiment) -> list[dict[str, Any]]:
    """A row per participant: where they are and how they did."""
    by_player: dict[str, list[dict]] = {}
    for episode in experiment.store.episodes():
        by_player.setdefault(episode["player"], []).append(episode)
    rows = []
    for record in experiment.participants.all():
        player = record["player"]
        live = experiment.live.get(player)
        episodes = by_player.get(player, [])
        stages = experiment.study.stages(record["order"])
        boards = sum(not e.get("practice") for e in episodes)
        where = "completed" if record["completed"] else (
            f"{experiment.phase(live)[0]}, stage {live.session.stage + 1} of {len(stages)}" if live else "not active now")
        rows.append({"player": player, "number": record["number"], "consent_version": record["consent"]["version"],
                     "where": where, "boards": f"{boards} of {sum(s.boards for s in stages if not s.practice)}",
                     "moves": sum(e["n_moves"] for e in episodes),
                     "disallowed": sum(e["n_moves"] - e["n_accepted"] for e in episodes),
                     "write_failures": live.write_failures if live else 0})
    return rows


def admin_page(experiment) -> str:
    rows = overview(experiment)
    head = "".join(f"<th scope=\"col\">{html.escape(key.replace('_', ' '))}</th>" for key in
                   ("player", "number", "consent_version", "where", "boards", "moves", "disallowed", "write_failures"))
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(str(value))}</td>" for value in row.values())
        + f'<td><form method="post" action="/admin/withdraw"><input type="hidden" name="player" '
          f'value="{html.escape(row["player"], quote=True)}"><button type="submit">withdraw</button></form></td></tr>'
        for row in rows)
    links = " ".join(f'<a href="/admin/export/{kind}.{fmt}">{kind}.{fmt}</a>' for kind in EXPORTS for fmt in ("csv", "json"))
    withdrawn = ", ".join(html.escape(p) for p in sorted(experiment.participants.withdrawn())) or "none"
    return (f'<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Study admin</title>'
            f'<link rel="stylesheet" href="/static/play.css"></head><body><main class="page wide">'
            f"<h1>{html.escape(experiment.study.title)}: participants</h1><p>Exports: {links}</p>"
            f'<table><thead><tr>{head}<th scope="col">withdraw</th></tr></thead><tbody>{body}</tbody></table>'
            f"<p>Withdrawn: {withdrawn}</p></main></body></html>")


def admin_routes(experiment, token: str | None) -> list[Route]:
    """The /admin routes (answering 404 when no admin token is configured)."""

    def check(request: Request) -> None:
        if token is None:
            raise HTTPException(404, "Not Found")
        if not authorized(request, token):
            raise HTTPException(401, "the admin pages need the admin token",
                                headers={"WWW-Authenticate": 'Basic realm="zoo gohr admin"'})

    async def page(request: Request) -> Response:
        check(request)
        return HTMLResponse(admin_page(experiment))

    async def export_route(request: Request) -> Response:
        check(request)
        kind, _, fmt = request.path_params["name"].partition(".")
        if kind not in EXPORTS or fmt not in ("csv", "json"):
            raise HTTPException(404, f"exports: {', '.join(f'{k}.csv, {k}.json' for k in EXPORTS)}")
        return export(experiment, kind, fmt)

    async def withdraw(request: Request) -> Response:
        check(request)
        from .app import read_form

        player = (await read_form(request)).get("player", [""])[0]
        try:
            experiment.participants.withdraw(player)
        except ZooError as exc:
            raise HTTPException(404, str(exc)) from None
        except OSError as exc:
            raise HTTPException(503, f"the withdrawal of {player} did not finish ({exc}); run it again") from None
        finally:
            experiment.drop(player)  # once the withdrawal is recorded the session is rebuilt from nothing
        if "text/html" in request.headers.get("accept", ""):
            return RedirectResponse("/admin", status_code=303)
        return PlainTextResponse(f"withdrawn: {player}\n")

    return [Route("/admin", page), Route("/admin/export/{name}", export_route),
            Route("/admin/withdraw", withdraw, methods=["POST"])]
