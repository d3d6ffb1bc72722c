"""The ALE paper's baseline set of a game (Section 4.1.2; docs/algorithms/atari-evaluation.md): the scores of Random, 18 Const and 18
Perturb agents, whose range [min, max] normalises every score of the game.

From a report's runs: each ale-baseline run of the game adds its agents, one for ``random`` or a
fixed action, one per trial for ``action: per_trial`` (trial t plays action t, so 18 trials are the
18 agents). Without such runs, the ALE paper's table gives a 3-agent proxy (Random, the best Const,
the best Perturb): its maximum is the 37 agents' maximum, its minimum only an upper bound of theirs.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from . import scores as S
from .reference_agents import policies

TABLE = "ale-scores.csv"


def agents(facts: dict[str, Any]) -> list[float]:
    """The baseline agents' scores of one run (none unless it ran an ale-baseline agent): one per policy it played."""
    return [float(np.mean(scores)) for _, scores in policies(facts)]


def baseline_sets(runs: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Per game: the baseline scores (``scores``), where they come from (``source``) and the protocols of
    the runs they come from (``protocols``; none for the table)."""
    sets: dict[str, dict[str, Any]] = {}
    for facts in runs:
        found = agents(facts)
        if found:
            entry = sets.setdefault(facts["game"], {"scores": [], "source": "runs", "protocols": []})
            entry["scores"] += found
            entry["protocols"].append(facts["protocol"])
    table = {name: S.column(TABLE, name) for name in ("random", "const", "perturb")}
    for game in {facts["game"] for facts in runs} - set(sets):
        if all(game in column for column in table.values()):
            sets[game] = {"scores": [column[game] for column in table.values()], "source": f"{TABLE} (proxy)",
                          "protocols": []}
    return sets


def label(entry: dict[str, Any]) -> str:
    return f"{len(entry['scores'])} agents, {entry['source']}"
