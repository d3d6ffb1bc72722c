"""The report's planning table: the planners' scores per game beside the learners', as the ALE paper
lays out its planning results (Section 3.2.3): each planner, the best learning agent and, for
reference, the best learner and best baseline policy of the paper's own table (``ale-scores.csv``).
"""

from __future__ import annotations

from typing import Any

from . import scores as S
from .games import display_name

PLANNERS = ("bfs", "uct")
PAPER_LEARNERS = ("basic", "bass", "disco", "lsh", "ram")
PAPER_BASELINES = ("random", "const", "perturb")


def planning_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per game with a planner's run: each planner's best run score, the best learner here, the paper's best."""
    scored = [r for r in rows if "score" in r]
    games = sorted({r["game"] for r in scored if r["algorithm"] in PLANNERS})
    table = []
    for game in games:
        here = [r for r in scored if r["game"] == game]
        entry: dict[str, Any] = {"game": game}
        for planner in PLANNERS:
            runs = [r["score"] for r in here if r["algorithm"] == planner]
            entry[planner] = max(runs) if runs else None
        learners = [r for r in here if r["algorithm"] not in PLANNERS and r["agent"]["type"] != "ale-baseline"]
        best = max(learners, key=lambda r: r["score"], default=None)
        entry["best_learner"] = (best["algorithm"], best["score"]) if best else None
        for key, columns in (("paper_best_learner", PAPER_LEARNERS), ("paper_best_baseline", PAPER_BASELINES)):
            values = {name: S.column("ale-scores.csv", name).get(game) for name in columns}
            values = {name: value for name, value in values.items() if value is not None}
            entry[key] = max(values.items(), key=lambda item: item[1]) if values else None
        table.append(entry)
    return table


def planning_markdown(table: list[dict[str, Any]]) -> str:
    """The planning table as a markdown section ('' when no planner ran)."""
    if not table:
        return ""

    def cell(value) -> str:
        if value is None:
            return "-"
        if isinstance(value, tuple):
            return f"{value[1]:.1f} ({value[0]})"
        return f"{value:.1f}"

    lines = ["", "## Planning (ALE paper, Section 3.2): planners beside the learners", "",
             "| game | BFS | UCT | best learner here | paper's best learner | paper's best baseline |",
             "|---|---|---|---|---|---|"]
    lines += [f"| {display_name(e['game'])} | {cell(e['bfs'])} | {cell(e['uct'])} | {cell(e['best_learner'])} | "
              f"{cell(e['paper_best_learner'])} | {cell(e['paper_best_baseline'])} |" for e in table]
    return "\n".join(lines) + "\n"
