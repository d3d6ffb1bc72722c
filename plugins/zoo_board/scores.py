"""Every number of a board over tasks, as one plain dict (the content of leaderboard.json).

* Per cell: each trial's final evaluation return (the mean over the budget's ``eval_episodes`` episodes),
  their mean with a percentile-bootstrap interval over trials, the normalized mean, and the learning
  curve (training episode returns by step, ``readout.learning_curve``) as the mean over trials with a
  bootstrap band.
* Per task, a normalization (``aggregates.normalized``): 0 is the task's random play, 1 its reference.
  Each is an agent of the board (the mean final return of its cell on the task), a number given by the
  board, or a column of a score table a plugin registers (e.g. Atari's human scores).
* Across tasks, with rliable (``aggregates``): IQM, median, mean and optimality gap of the normalized
  final returns with stratified bootstrap intervals, the probability of improvement of every ordered
  pair of agents, and performance profiles. Only tasks with a normalization and agents with a scored
  cell on each of them take part; what is left out is said in ``warnings``, as is every cell and agent
  with too few trials for an interval.

Cells that failed or have not run are listed with their state and never scored.
"""

from __future__ import annotations

import os
import warnings
from pathlib import Path

import numpy as np

from zoo import __version__

from .aggregates import (
    MIN_RUNS_FOR_INTERVAL,
    aggregate_estimates,
    improvement_probabilities,
    normalized,
    performance_profiles,
    profile_taus,
    too_few_runs,
)
from .board import TableAnchor
from .cells import CellState
from .plan import spec_link
from .readout import Cell, learning_curve


def mean_band(values: np.ndarray, *, resamples: int, seed: int) -> tuple[np.ndarray, np.ndarray | None, np.ndarray | None]:
    """Column means of `values` (trials x points, NaN where a trial has no value yet) with 95% percentile-
    bootstrap bounds from resampling the trials; no bounds with fewer than two trials."""
    values = np.atleast_2d(np.asarray(values, dtype=float))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a point where no (resampled) trial has a value yet
        mean = np.nanmean(values, axis=0)
        if len(values) < MIN_RUNS_FOR_INTERVAL:
            return mean, None, None
        rng = np.random.default_rng(seed)
        draws = np.nanmean(values[rng.integers(0, len(values), (resamples, len(values)))], axis=1)
        low, high = np.nanpercentile(draws, [2.5, 97.5], axis=0)
    return mean, low, high


def normalization(board, cells: dict[tuple[str, str], Cell],
                  table_scores: dict[str, dict[str, float]]) -> dict[str, dict]:
    """Per task: the random and reference scores, where each comes from, and why the task cannot be
    normalized (``problem``), if it cannot. `table_scores` holds the anchors read from score tables
    (anchor -> task -> score)."""
    result = {}
    for task in board.tasks:
        entry: dict = {"problem": None}
        for anchor in ("random", "reference"):
            source = getattr(board.scores, anchor)
            if isinstance(source, TableAnchor):
                entry[anchor], entry[f"{anchor}_from"] = table_scores[anchor][task], f"{source.table}:{source.column}"
                continue
            if isinstance(source, dict):
                source = source[task]
            if source is None:
                entry[anchor], entry[f"{anchor}_from"] = None, None
                entry["problem"] = entry["problem"] or f"the board names no {anchor} score (scores.{anchor})"
            elif isinstance(source, str):
                cell = cells.get((source, task))
                entry[anchor], entry[f"{anchor}_from"] = (None if cell is None else float(cell.returns.mean())), source
                if cell is None:
                    entry["problem"] = entry["problem"] or (f"the {anchor} agent {source}'s cell is not scored"
                                                            if board.plays(source, task) else
                                                            f"the {anchor} agent {source} does not play it")
            else:
                entry[anchor], entry[f"{anchor}_from"] = float(source), "board"
        if entry["problem"] is None and entry["random"] == entry["reference"]:
            entry["problem"] = f"the reference score equals random play's ({entry['random']:g})"
        result[task] = entry
    return result


def _cell_row(state: CellState, cell: Cell | None, norm: dict, steps: np.ndarray, scores, out: Path) -> dict:
    plan = state.plan
    row = {"agent": plan.agent, "task": plan.task, "key": plan.key, "run": os.path.relpath(state.folder, out),
           "spec": spec_link(plan)}
    if cell is None:
        row.update(state="failed" if state.status in ("failed", "damaged") else "not run", error=state.error)
        return row
    mean, low, high = mean_band(cell.returns[:, None], resamples=scores.bootstraps, seed=scores.seed)
    curve_mean, curve_low, curve_high = mean_band(learning_curve(cell.episodes, steps), resamples=scores.bootstraps,
                                                  seed=scores.seed)
    row.update(state="scored", trials=len(cell.returns), returns=cell.returns.tolist(), mean=float(mean[0]),
               mean_ci95=None if low is None else [float(low[0]), float(high[0])],
               normalized=None if norm["problem"] else float(normalized(mean, norm["random"], norm["reference"])[0]),
               curve={"step": steps.tolist(), "mean": curve_mean.tolist(),
                      "low": None if curve_low is None else curve_low.tolist(),
                      "high": None if curve_high is None else curve_high.tolist()})
    return row


def _last_step(cells: dict[tuple[str, str], Cell]) -> float:
    """The largest step at which any cell's training episode ended: the right end of every learning curve."""
    return max((float(trial[-1, 0]) for cell in cells.values() for trial in cell.episodes if len(trial)), default=1.0)


def across_tasks(loaded, cells: dict[tuple[str, str], Cell], norms: dict[str, dict]) -> dict:
    """rliable's aggregates over the tasks that can be normalized and the agents scored on all of them."""
    board, scores = loaded.board, loaded.board.scores
    chosen = scores.aggregate_tasks or loaded.tasks
    notes = [f"task {task} is left out of the aggregates: {norms[task]['problem']}" for task in chosen
             if norms[task]["problem"]]
    tasks = [task for task in chosen if norms[task]["problem"] is None]
    agents, matrices = [], {}
    for agent in board.agents:
        unplayed = [task for task in tasks if not board.plays(agent, task)]
        missing = [task for task in tasks if board.plays(agent, task) and (agent, task) not in cells]
        if unplayed or missing:
            why = "; ".join(filter(None, [unplayed and f"it does not play {', '.join(unplayed)}",
                                          missing and f"no scored cell on {', '.join(missing)}"]))
            notes.append(f"agent {agent} is left out of the aggregates: {why}")
            continue
        runs = min(len(cells[(agent, task)].returns) for task in tasks) if tasks else 0
        if tasks and any(len(cells[(agent, task)].returns) > runs for task in tasks):
            notes.append(f"agent {agent}: the aggregates use the first {runs} trials of each task (its fewest)")
        agents.append(agent)
        matrices[agent] = np.stack([normalized(cells[(agent, t)].returns[:runs], norms[t]["random"],
                                               norms[t]["reference"]) for t in tasks], axis=1) if tasks else None
    if not tasks or not agents:
        return {"tasks": tasks, "agents": agents, "runs": {}, "aggregates": {}, "improvement": [], "profiles": {},
                "warnings": notes}
    notes += [f"agent {agent} has {matrices[agent].shape[0]} trial per task: its aggregate intervals are a point, "
                 "not certainty" for agent in too_few_runs(matrices)]
    reps, seed = scores.bootstraps, scores.seed
    estimates = aggregate_estimates(matrices, reps=reps, seed=seed)
    improvement = improvement_probabilities(matrices, reps=reps, seed=seed)
    profiles = performance_profiles(matrices, profile_taus(matrices, scores.profile_points), reps=reps, seed=seed)
    return {
        "tasks": tasks, "agents": agents, "runs": {agent: int(matrix.shape[0]) for agent, matrix in matrices.items()},
        "aggregates": {agent: {name: e.as_dict() for name, e in by_name.items()} for agent, by_name in estimates.items()},
        "improvement": [{"x": x, "y": y, **e.as_dict()} for (x, y), e in improvement.items()],
        "profiles": profiles, "warnings": notes,
    }


def build(loaded, states: list[CellState], cells: dict[tuple[str, str], Cell], out: Path) -> dict:
    """Per cell, per task and across-task results of a board whose finished cells are `cells`."""
    board, scores = loaded.board, loaded.board.scores
    norms = normalization(board, cells, loaded.table_scores)
    steps = np.unique(np.linspace(0, _last_step(cells), scores.curve_points).round())
    rows = [_cell_row(s, cells.get((s.plan.agent, s.plan.task)), norms[s.plan.task], steps, scores, out)
            for s in states]
    notes = [f"{r['agent']} on {r['task']}: {r['trials']} trial, too few for an interval" for r in rows
             if r["state"] == "scored" and r["trials"] < MIN_RUNS_FOR_INTERVAL]
    aggregate = across_tasks(loaded, cells, norms)
    return finite({
        "board": board.name, "description": board.description, "zoo_version": __version__,
        "agents": list(board.agents), "tasks": loaded.tasks, "budget": board.budget, "trials": board.trials,
        "normalization": norms, "cells": rows,
        "aggregates": {key: aggregate[key] for key in ("tasks", "agents", "runs", "aggregates", "improvement",
                                                        "profiles")},
        "warnings": notes + aggregate["warnings"],
    })


def finite(value):
    """The dict with non-finite numbers as None and floats at 10 significant digits, so the JSON is plain and
    stable."""
    if isinstance(value, dict):
        return {k: finite(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(v) for v in value]
    if isinstance(value, (float, np.floating)):
        return None if not np.isfinite(value) else float(f"{float(value):.10g}") + 0.0  # + 0.0: no -0.0
    if isinstance(value, np.integer):
        return int(value)
    return value
