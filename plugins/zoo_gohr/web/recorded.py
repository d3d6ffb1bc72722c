"""The agent ``human``: people's recorded play from a transcript store of ``zoo gohr serve``.

It is registered so that specs and boards can name it (``agent: {type: human, recorded: STORE}``),
but it plays no moves of its own: ``zoo train`` refuses it, and a leaderboard or ``zoo gohr
human-runs`` reads its trials from the store instead. A trial is one player's boards of one rule,
in the order played, restricted to the board settings asked for (practice boards left out); each board becomes an episode
whose ``episode_return`` is minus its errors (moves not accepted), the row a trained agent logs.
"""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from zoo import Params, ZooError

from .store import TranscriptStore, rule_copy_path, valid_player

HUMAN = "human"


class HumanParams(Params):
    """Where the recorded play is, and whose."""

    recorded: str = Field(description="a transcript store of 'zoo gohr serve' (the folder given to --store)")
    players: list[str] | None = Field(default=None, min_length=1,
                                      description="only these player ids (default: every player in the store)")

    @field_validator("recorded")
    @classmethod
    def _is_store(cls, value: str) -> str:
        if not (Path(value) / "transcripts").is_dir():
            raise ValueError(f"{value}: not a transcript store of 'zoo gohr serve' (no transcripts/ folder)")
        return value

    @field_validator("players")
    @classmethod
    def _player_ids(cls, value: list[str] | None) -> list[str] | None:
        bad = [p for p in value or [] if not valid_player(p)]
        if bad:
            raise ValueError(f"not a player id: {bad[0]!r} (1 to 64 letters, digits, '.', '_' or '-')")
        return value


def refuse_training(params: HumanParams, context: Any):
    """The factory of ``human``: people are recorded, not trained."""
    raise ZooError(f"agent 'human' is people's recorded play ({params.recorded}) and cannot be trained; "
                   "put it on a leaderboard (agents: {human: {agent: {type: human, recorded: STORE}}}) "
                   "or turn the store into runs with 'zoo gohr human-runs STORE'")


def board_args(board: dict[str, Any]) -> tuple[str, ...]:
    """The generator's board ranges of an env's board block (``objects shapes colors`` as ``a:b``), as the
    transcripts' ``cgs_args`` hold them."""
    from ..params import BoardParams

    params = BoardParams(**board)
    return tuple(f"{low}:{low if high is None else high}" for low, high in (
        (params.min_objects, params.max_objects), (params.min_shapes, params.max_shapes),
        (params.min_colors, params.max_colors)))


def recorded_trials(params: HumanParams, rule: str, board: dict[str, Any], horizon: int) -> dict[str, list[dict]]:
    """Each player's stored boards of `rule` on the board settings `board` (an env's board block) cut at
    `horizon` moves, in the order played; players with none are left out. (Transcripts that do not record
    their cut, from before ``max_moves`` was stored, are taken to match.)"""
    store = TranscriptStore(Path(params.recorded))  # the params checked that it exists
    wanted, args = set(params.players or []), board_args(board)
    trials: dict[str, list[dict]] = {}
    for record in store.episodes():
        if not record.get("practice") and record["rule"] == rule and tuple(record["cgs_args"][1:4]) == args \
                and record.get("max_moves", horizon) == horizon and (not wanted or record["player"] in wanted):
            trials.setdefault(record["player"], []).append(record)
    return {player: sorted(records, key=lambda r: (r["stage"], r["episode"])) for player, records in sorted(trials.items())}


def metrics_rows(records: list[dict]) -> list[dict]:
    """One player's boards as the metric rows of a trial: ``step`` counts moves, ``episode_return`` = -errors."""
    rows, step = [], 0
    for record in records:
        step += record["n_moves"]
        rows.append({"step": step, "episode": len(rows), "episode_return": -(record["n_moves"] - record["n_accepted"]),
                     "episode_length": record["n_moves"]})
    return rows


def recorded_digest(params: HumanParams, rule: str, rule_text: bytes | None, board: dict[str, Any],
                    horizon: int) -> str:
    """A hash of the transcripts behind a (human, rule) cell, so that a cell is made again when players are
    added. The store must hold the rule as `rule_text` (when given): play under another rule is not this rule's."""
    if rule_text is not None:
        copy = Path(params.recorded) / rule_copy_path(rule)
        if copy.is_file() and copy.read_bytes() != rule_text:
            raise ZooError(f"{copy}: the store's copy of rule '{rule}' differs from the rule the board plays; "
                           "its players played another rule")
    digest = hashlib.sha256()
    for player, records in recorded_trials(params, rule, board, horizon).items():
        for record in records:
            digest.update(f"{player}/{record['stage']}/{record['episode']}/{record['cgs_args']}/"
                          f"{[step['accepted'] for step in record['steps']]}\n".encode())
    return digest.hexdigest()
