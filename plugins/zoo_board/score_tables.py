"""Tables of published scores per task, that boards over tasks normalize with.

The board plugin declares the kind ``score_table`` (``register_kinds``); plugins contribute tables through
its ``register_score_tables`` hook (zoo_atari: Atari-57's random, human and human world-record scores). A
board names one column per anchor: ``scores: {random: {table: atari, column: random}, reference: {table:
atari, column: human}}`` gives human-normalized scores.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zoo import Entry, KindEntry, hookspec


@dataclass(frozen=True)
class ScoreTableEntry(Entry):
    """A table of published scores per task that boards over tasks normalize with (``scores.random: {table:
    NAME, column: COLUMN}``), e.g. Atari's random and human scores.

    ``columns``: the scores each row holds; ``scores(env)``: the row of a task's env block (column -> score;
    columns it has no score for left out), or None when the table has no row for it.
    """

    columns: tuple[str, ...] = ()
    scores: Callable[[dict[str, Any]], dict[str, float] | None] | None = None


@hookspec
def register_score_tables(register: Callable[[ScoreTableEntry], None]) -> None:
    """Contribute tables of reference scores: ``register(ScoreTableEntry(name=..., columns=..., scores=...))``."""


SCORE_TABLES = KindEntry(name="score_table", hookspecs=sys.modules[__name__], hook="register_score_tables",
                         entry=ScoreTableEntry, label="score table",
                         description="published scores per task (e.g. Atari's human and random) that boards normalize with")
