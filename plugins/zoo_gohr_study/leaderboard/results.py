"""Every number of a leaderboard, as one plain dict (the content of leaderboard.json).

Cells that failed, have not run or (recorded play) have too few players are listed with their state
and never scored: they take no part in the U-tests, ease ratios or tournaments. +inf (a C.N.M. median
or bound) is written as null.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
from zoo_board.cells import TOO_FEW, CellState
from zoo_board.plan import spec_link
from zoo_board.scores import finite
from zoo_report.caveats import caveats, unfinished
from zoo_report.stats.bands import median_bands

from zoo import MANIFEST, RunFolder, __version__

from .board import LoadedBoard
from .scoring import Cell, cell_summary, rule_comparisons, tournament


def _curve(cell: Cell, points: int, resamples: int, seed: int) -> dict:
    """The median cumulative-error curve over the episodes every trial reached, with a bootstrap band,
    at up to `points` episodes."""
    length = min(len(c) for c in cell.curves)
    curves = np.stack([c[:length] for c in cell.curves])
    at = np.unique(np.linspace(0, length - 1, min(points, length)).round().astype(int))
    median, low, high = median_bands(curves[:, at], resamples=resamples, seed=seed)
    return {"episode": [int(a) + 1 for a in at], "median": median.tolist(), "low": low.tolist(), "high": high.tolist()}


def build(loaded: LoadedBoard, states: list[CellState], cells: dict[tuple[str, str], Cell], out: Path) -> dict:
    """Per cell, per rule and tournament results of a board whose finished cells are `cells`."""
    board, metrics = loaded.board, loaded.board.metrics
    agents = list(board.agents)
    rows = []
    for state in states:
        plan = state.plan
        row = {"agent": plan.agent, "rule": plan.task, "key": plan.key,
               "run": os.path.relpath(state.folder, out), "spec": spec_link(plan)}
        cell = cells.get((plan.agent, plan.task))
        if cell is None:
            unscored = state.state if state.state == TOO_FEW else "failed" if state.status in ("failed", "damaged") \
                else state.status if state.status in ("running", "interrupted") else "not run"
            row.update(state=unscored, error=state.error)
            if state.status in ("running", "interrupted", "failed") and (state.folder / MANIFEST).is_file():
                row["progress"] = unfinished(RunFolder(state.folder))
        else:
            row.update(state="scored", **cell_summary(cell, resamples=metrics.bootstraps, seed=metrics.seed))
            row["curve"] = _curve(cell, metrics.curve_points, metrics.bootstraps, metrics.seed)
            row["caveats"] = caveats(RunFolder(state.folder))
        rows.append(row)
    by_rule = {rule: {a: cells[(a, rule)].ranked(metrics.cnm) for a in agents if (a, rule) in cells}
               for rule in loaded.rules}
    by_agent = {a: {rule: cells[(a, rule)].ranked(metrics.cnm) for rule in loaded.rules if (a, rule) in cells}
                for a in agents}
    resamples, seed = metrics.ranking_bootstraps, metrics.seed
    return finite({
        "board": board.name, "description": board.description, "zoo_version": __version__,
        "agents": agents, "rules": loaded.rules,
        "budget": board.budget, "trials": board.trials, "cnm": metrics.cnm,
        "cells": rows,
        "per_rule": {rule: rule_comparisons(games) for rule, games in by_rule.items() if len(games) >= 2},
        "agent_ranking": tournament([a for a in agents if by_agent[a]], [g for g in by_rule.values() if g],
                                    resamples=resamples, seed=seed),
        "rule_ranking": {
            "overall": tournament([r for r in loaded.rules if by_rule[r]], [g for g in by_agent.values() if g],
                                  resamples=resamples, seed=seed),
            "per_agent": {a: tournament(list(games), [games], resamples=resamples, seed=seed)
                          for a, games in by_agent.items() if games},
        },
    })
