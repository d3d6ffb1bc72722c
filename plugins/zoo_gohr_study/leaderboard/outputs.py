"""leaderboard.json, the CSV tables and leaderboard.md, all from the results dict."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

from zoo import atomic_write_text

CNM = "C.N.M."


def number(value, digits: int = 4) -> str:
    """A table entry: C.N.M. for a missing (infinite) TCE, else the value with `digits` significant digits."""
    return CNM if value is None else f"{value:.{digits}g}"


def figure_name(rule: str) -> str:
    """The file of a rule's median-curve figure, relative to the output folder."""
    return "curves/" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in rule).strip("._") + ".svg"


def write_json(results: dict, path: Path) -> Path:
    atomic_write_text(path, json.dumps(results, indent=1, sort_keys=True) + "\n")
    return path


def write_csv(results: dict, out: Path) -> list[Path]:
    """cells.csv (one row per agent and rule) and ranking.csv (the agents' tournament)."""
    cells = io.StringIO()
    writer = csv.writer(cells, lineterminator="\n")
    writer.writerow(["agent", "rule", "state", "trials", "converged", "median_tce", "median_ci95_low",
                     "median_ci95_high", "q1", "q3", "spec"])
    for row in results["cells"]:
        scored = row["state"] == "scored"
        values = [row.get("trials"), row.get("converged"), row.get("median"), *(row.get("median_ci95") or [None, None]),
                  *(row.get("quartiles") or [None, None])] if scored else [""] * 7
        writer.writerow([row["agent"], row["rule"], row["state"],
                         *(CNM if scored and v is None else v for v in values), row["spec"]])
    ranking = io.StringIO()
    writer = csv.writer(ranking, lineterminator="\n")
    writer.writerow(["rank", "agent", "perron", "perron_ci95_low", "perron_ci95_high", "hodge", "hodge_ci95_low",
                     "hodge_ci95_high", "rules_scored"])
    for row in results["agent_ranking"]["ranking"]:
        writer.writerow([row["perron_rank"], row["name"], row["perron"], *(row["perron_ci95"] or ["", ""]),
                         row["hodge"], *(row["hodge_ci95"] or ["", ""]), row["games"]])
    written = [out / "cells.csv", out / "ranking.csv"]
    atomic_write_text(written[0], cells.getvalue())
    atomic_write_text(written[1], ranking.getvalue())
    return written


def _median(cell: dict) -> str:
    """A cell's median TCE, or C.N.M. with the median errors its trials made."""
    return number(cell["median"]) if cell["median"] is not None else f"{CNM} [{cell['median_errors']:g} errors]"


def _interval(bounds, digits=3) -> str:
    return "" if bounds is None else f"{bounds[0]:.{digits}g} to {bounds[1]:.{digits}g}"


def _rank_interval(bounds) -> str:
    return "" if bounds is None else f"{int(bounds[0])} to {int(bounds[1])}"


def markdown(results: dict) -> str:
    """The tables of the board: agents' ranking, median TCE per cell, the rules' ranking, unscored cells."""
    lines = [f"# Leaderboard {results['board']}", ""]
    if results["description"]:
        lines += [results["description"], ""]
    lines += ["Agents ranked by the tournament of ease ratios over the rules (Perron eigenvector, larger is better; "
              "Hodge rating, larger is better), with 95% intervals from resampling trials.", "",
              "| rank | agent | Perron | 95% interval | rank interval | Hodge | 95% interval | rules |",
              "|---|---|---|---|---|---|---|---|"]
    for r in results["agent_ranking"]["ranking"]:
        lines.append(f"| {r['perron_rank']} | {r['name']} | {r['perron']:.3f} | {_interval(r['perron_ci95'])} | "
                     f"{_rank_interval(r['perron_rank_ci95'])} | {r['hodge']:+.2f} | {_interval(r['hodge_ci95'])} | "
                     f"{r['games']} |")
    lines += ["", f"Share of the agents' ease-ratio flow that is cyclic (Hodge): "
                  f"{results['agent_ranking']['hodge_cyclic_share']:.3g}.", "",
              "Median terminal cumulated error (TCE) per cell, and trials that converged; C.N.M.: the median trial "
              "did not meet the convergence test (under 0.25% wrong moves over its last 150 episodes), with the median errors "
              "its trials made. In comparisons, C.N.M. trials rank below every converged trial"
              + (" and tie with each other." if results["cnm"] == "tie" else ", ordered by their errors."), "",
              "| rule | " + " | ".join(results["agents"]) + " |", "|---" * (len(results["agents"]) + 1) + "|"]
    cells = {(c["agent"], c["rule"]): c for c in results["cells"]}
    for rule in results["rules"]:
        entries = []
        for agent in results["agents"]:
            c = cells[(agent, rule)]
            entries.append(f"{_median(c)} ({c['converged']}/{c['trials']})" if c["state"] == "scored" else c["state"])
        lines.append(f"| {rule} | " + " | ".join(entries) + " |")
    lines += ["", "Rules from easiest to hardest (tournament over the agents; Perron, larger is easier).", "",
              "| rank | rule | Perron | rank interval | Hodge |", "|---|---|---|---|---|"]
    for r in results["rule_ranking"]["overall"]["ranking"]:
        lines.append(f"| {r['perron_rank']} | {r['name']} | {r['perron']:.3f} | {_rank_interval(r['perron_rank_ci95'])} "
                     f"| {r['hodge']:+.2f} |")
    scored_rules = {c["rule"] for c in results["cells"] if c["state"] == "scored"}
    lines += ["", "Median cumulative errors by episode, with 95% bootstrap bands:", ""]
    lines += [f"![{rule}]({figure_name(rule)})" for rule in results["rules"] if rule in scored_rules]
    unscored = [c for c in results["cells"] if c["state"] != "scored"]
    if unscored:
        lines += ["", "Cells not scored (they take no part in any comparison):", ""]
        lines += [f"* {c['agent']} on {c['rule']}: {c['state']}" + (f" ({c['error']})" if c.get("error") else "")
                  + (f"; {c['progress']}" if c.get("progress") else "") for c in unscored]
    noted = [c for c in results["cells"] if c.get("caveats")]
    if noted:
        lines += ["", "Cells scored on what is left of their metrics:", ""]
        lines += [f"* {c['agent']} on {c['rule']}: {note}" for c in noted for note in c["caveats"]]
    return "\n".join(lines) + "\n"


def write_markdown(results: dict, path: Path) -> Path:
    atomic_write_text(path, markdown(results))
    return path
