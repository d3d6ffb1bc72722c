"""``zoo gohr serve`` and ``zoo gohr human-runs`` (typer commands; the web stack loads only when serving)."""

from __future__ import annotations

import os
import re
from pathlib import Path

import typer

from zoo import ZooError, default_runs_dir


def serve(
    rules: list[str] | None = typer.Argument(None, help="Rules to play in order ('paper/clockwise' or "
                                                "'paper/clockwise 8' for 8 boards)."),
    rule_list: Path | None = typer.Option(None, "--rule-list", help="A text file of rules, 'RULE [BOARDS]' a line."),
    trial_list: Path | None = typer.Option(None, "--trial-list", help="A trial list in the authors' CSV format."),
    study: Path | None = typer.Option(None, "--study", help="A study file: consent, rules and their order, practice, "
                                      "questions, completion (docs/human-play.md)."),
    store: Path = typer.Option(Path("gohr-human"), "--store", help="Folder of the transcripts (created if missing)."),
    boards: int = typer.Option(5, min=1, max=1000, help="Boards per rule (rule names and rule lists)."),
    pieces: int = typer.Option(9, min=1, max=36, help="Pieces per board (rule names and rule lists)."),
    max_moves: int = typer.Option(100, "--max-moves", min=1, max=10_000, help="A board ends after this many moves."),
    consent: Path | None = typer.Option(None, "--consent", help="An HTML page to use as the consent page."),
    host: str = typer.Option("127.0.0.1", help="Interface to listen on (default: this machine only)."),
    port: int = typer.Option(8000, min=1, max=65535, help="Port to listen on."),
    origin: list[str] | None = typer.Option(None, "--origin", help="The public origin participants reach the "
                                            "server at behind a proxy, e.g. https://study.example.org (repeatable)."),
    admin_token_file: Path | None = typer.Option(None, "--admin-token-file", help="A file holding the token of the "
                                                 "/admin pages (or set ZOO_GOHR_ADMIN_TOKEN); none: no admin pages."),
) -> None:
    """Serve hidden rules to people in a browser; every move is stored, every finished board as a transcript."""
    from .experiment import read_rule_list, read_trial_list
    from .experiment import rule_list as stages_of
    from .store import TranscriptStore
    from .study import Study, load_study

    if sum(x is not None and x != [] for x in (rules, rule_list, trial_list, study)) != 1:
        raise ZooError("give the rules to play: rule names, --rule-list FILE, --trial-list FILE or --study FILE "
                       "(exactly one)")
    if consent is not None and not consent.is_file():
        raise ZooError(f"--consent {consent}: no such file")
    admin_token = _admin_token(admin_token_file)
    bad_origins = [o for o in origin or [] if not re.fullmatch(r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?", o)]
    if bad_origins:
        raise ZooError(f"--origin {bad_origins[0]}: give scheme and host only, e.g. https://study.example.org")
    if study is not None:
        plan = load_study(study)
    elif trial_list is not None:
        plan = Study.of_stages(read_trial_list(trial_list, max_moves=max_moves))
    elif rule_list is not None:
        plan = Study.of_stages(read_rule_list(rule_list, boards=boards, pieces=pieces, max_moves=max_moves))
    else:
        plan = Study.of_stages(stages_of(rules, boards=boards, pieces=pieces, max_moves=max_moves))
    try:
        from .app import Experiment
        from .app import serve as run_server
    except ImportError as exc:
        raise ZooError(f"zoo gohr serve needs the web extra: pip install 'zoo-rl[web]' ({exc})") from None
    experiment = Experiment(plan, TranscriptStore(store))
    admin = "; admin pages at /admin" if admin_token else ""
    typer.echo(f"serving {len(plan.rule_stages)} rule(s) at http://{host}:{port}/ ; transcripts in {store}{admin}",
               err=True)
    run_server(experiment, host=host, port=port, consent_page=consent, admin_token=admin_token,
               origins=tuple(origin or ()))


def _admin_token(path: Path | None) -> str | None:
    """The admin token from a file or ZOO_GOHR_ADMIN_TOKEN (at least 16 characters), or None."""
    if path is not None:
        try:
            token = path.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError) as exc:
            raise ZooError(f"--admin-token-file {path}: cannot read it ({exc})") from None
    else:
        token = os.environ.get("ZOO_GOHR_ADMIN_TOKEN", "").strip() or None
    if token is not None and len(token) < 16:
        raise ZooError("the admin token is shorter than 16 characters; make one with: "
                       "python -c 'import secrets; print(secrets.token_urlsafe(24))'")
    return token


def human_runs(
    store: Path = typer.Argument(..., help="A transcript store of 'zoo gohr serve'."),
    runs_dir: Path | None = typer.Option(None, "--runs-dir", help="Where runs go (default: the zoo runs folder)."),
) -> None:
    """Turn a store's transcripts into runs of the agent 'human' (one per rule), for zoo report and leaderboards."""
    from .runs import human_runs as write_runs
    from .store import TranscriptStore

    if not (store / "transcripts").is_dir():
        raise ZooError(f"{store}: not a transcript store (no transcripts/ folder)")
    for folder in write_runs(TranscriptStore(store), runs_dir or default_runs_dir()):
        typer.echo(str(folder.path))
