"""A board over tasks, published: leaderboard.json, cells.csv, aggregates.csv, improvement.csv, the figures
(figures/profiles.svg and a learning-curve figure per task), leaderboard.md and a self-contained leaderboard.html."""

from __future__ import annotations

import csv
import io
import json
from html import escape
from pathlib import Path

from zoo import atomic_write_text

AGGREGATE_NAMES = {"iqm": "IQM", "median": "median", "mean": "mean", "optimality_gap": "optimality gap"}
PROFILES = "figures/profiles.svg"

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3}
td.name,th.name{text-align:left}
td.unscored{color:#a00}
.warnings{background:#fff4e5;border:1px solid #f0b36b;padding:.5em 1em}
.figures{display:flex;flex-wrap:wrap;gap:1em}
small{color:#666}
"""


def curve_figure(task: str) -> str:
    """The file of a task's learning-curve figure, relative to the output folder."""
    return "figures/curves-" + "".join(ch if ch.isalnum() or ch in "-_." else "_" for ch in task) + ".svg"


def _number(value, digits: int = 4) -> str:
    return "" if value is None else f"{value:.{digits}g}"


def _interval(bounds, digits: int = 3) -> str:
    return "no interval" if bounds is None else f"{bounds[0]:.{digits}g} to {bounds[1]:.{digits}g}"


def write_json(results: dict, path: Path) -> Path:
    atomic_write_text(path, json.dumps(results, indent=1, sort_keys=True) + "\n")
    return path


def _csv(rows: list[list]) -> str:
    text = io.StringIO()
    csv.writer(text, lineterminator="\n").writerows(rows)
    return text.getvalue()


def write_csv(results: dict, out: Path) -> list[Path]:
    """cells.csv (a row per agent and task), aggregates.csv (a row per agent and aggregate) and improvement.csv
    (a row per ordered pair of agents)."""
    cells = [["agent", "task", "state", "trials", "mean_return", "ci95_low", "ci95_high", "normalized", "spec"]]
    for row in results["cells"]:
        bounds = row.get("mean_ci95") or [None, None]
        cells.append([row["agent"], row["task"], row["state"], row.get("trials"), row.get("mean"), *bounds,
                      row.get("normalized"), row["spec"]])
    aggregates = [["agent", "aggregate", "value", "ci95_low", "ci95_high", "runs_per_task"]]
    for agent, by_name in results["aggregates"]["aggregates"].items():
        for name, e in by_name.items():
            aggregates.append([agent, name, e["value"], e["low"], e["high"], results["aggregates"]["runs"][agent]])
    improvement = [["x", "y", "p_x_better", "ci95_low", "ci95_high"]]
    improvement += [[p["x"], p["y"], p["value"], p["low"], p["high"]] for p in results["aggregates"]["improvement"]]
    written = []
    for name, rows in (("cells.csv", cells), ("aggregates.csv", aggregates), ("improvement.csv", improvement)):
        written.append(out / name)
        atomic_write_text(written[-1], _csv([["" if v is None else v for v in row] for row in rows]))
    return written


def write_figures(results: dict, out: Path) -> list[Path]:
    """The performance profiles and every task's learning curves, as SVG (matplotlib)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    (out / "figures").mkdir(parents=True, exist_ok=True)
    colours = {agent: plt.get_cmap("tab10")(k % 10) for k, agent in enumerate(results["agents"])}
    written = []
    with matplotlib.rc_context({"svg.hashsalt": "zoo-board", "svg.fonttype": "none"}):
        profiles = results["aggregates"]["profiles"]
        if profiles:
            fig, ax = plt.subplots(figsize=(6, 4))
            for agent, p in profiles.items():
                ax.plot(p["tau"], p["fraction"], color=colours[agent], label=agent)
                ax.fill_between(p["tau"], p["low"], p["high"], color=colours[agent], alpha=0.18, linewidth=0)
            ax.set(xlabel="normalized score τ (0: random play, 1: reference)", ylabel="fraction of runs with score > τ",
                   title="Performance profiles")
            ax.legend(fontsize=8)
            written.append(_save(fig, out / PROFILES))
        scored = [c for c in results["cells"] if c["state"] == "scored"]
        for task in results["tasks"]:
            rows = [c for c in scored if c["task"] == task]
            if not rows:
                continue
            fig, ax = plt.subplots(figsize=(5, 3.4))
            for c in rows:
                curve = c["curve"]
                steps = curve["step"]
                ax.plot(steps, [float("nan") if v is None else v for v in curve["mean"]], color=colours[c["agent"]],
                        label=c["agent"])
                if curve["low"] is not None:
                    ax.fill_between(steps, [float("nan") if v is None else v for v in curve["low"]],
                                    [float("nan") if v is None else v for v in curve["high"]],
                                    color=colours[c["agent"]], alpha=0.18, linewidth=0)
            ax.set(xlabel="environment steps", ylabel="training episode return", title=task)
            ax.legend(fontsize=7)
            written.append(_save(fig, out / curve_figure(task)))
    return written


def _save(fig, path: Path) -> Path:
    import matplotlib.pyplot as plt

    buffer = io.StringIO()
    fig.tight_layout()
    fig.savefig(buffer, format="svg", metadata={"Date": None})
    plt.close(fig)
    atomic_write_text(path, buffer.getvalue())
    return path


def anchors(results: dict) -> str:
    """What 0 and 1 of the normalized scale are, e.g. "0: random play (agent random), 1: the reference (atari:human)"."""
    def sources(anchor: str) -> str:
        names = sorted({str(norm[f"{anchor}_from"]) for norm in results["normalization"].values()
                        if norm.get(f"{anchor}_from") is not None})
        named = ["numbers the board gives" if n == "board" else n if ":" in n else f"agent {n}" for n in names]
        return f" ({', '.join(named)})" if named else ""
    return f"0: random play{sources('random')}, 1: the reference{sources('reference')}"


def markdown(results: dict) -> str:
    """The board's tables: aggregates, the probability of improvement, per-cell means, unscored cells, warnings."""
    agg = results["aggregates"]
    lines = [f"# Leaderboard {results['board']}", ""]
    if results["description"]:
        lines += [results["description"], ""]
    if results["warnings"]:
        lines += ["**Warnings**", ""] + [f"* {w}" for w in results["warnings"]] + [""]
    if agg["aggregates"]:
        lines += [f"Aggregates of the normalized final returns over {', '.join(agg['tasks'])} ({anchors(results)}), "
                  "with 95% stratified-bootstrap intervals (rliable; Agarwal et al., NeurIPS 2021). "
                  "Larger is better, except the optimality gap.", "",
                  "| agent | " + " | ".join(AGGREGATE_NAMES.values()) + " |", "|---" * (len(AGGREGATE_NAMES) + 1) + "|"]
        for agent, by_name in agg["aggregates"].items():
            lines.append(f"| {agent} | " + " | ".join(
                f"{_number(by_name[k]['value'], 3)} ({_interval([by_name[k]['low'], by_name[k]['high']])})"
                for k in AGGREGATE_NAMES) + " |")
        lines += ["", f"![performance profiles]({PROFILES})", ""]
        if agg["improvement"]:
            names = agg["agents"]
            table = {(p["x"], p["y"]): p for p in agg["improvement"]}
            lines += ["Probability of improvement P(row > column): the chance that a run of the row agent scores "
                      "above a run of the column agent on a task, averaged over the tasks.", "",
                      "| P(row > column) | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
            for x in names:
                lines.append(f"| {x} | " + " | ".join("-" if x == y else f"{table[(x, y)]['value']:.2f} "
                                                      f"({_interval([table[(x, y)]['low'], table[(x, y)]['high']], 2)})"
                                                      for y in names) + " |")
            lines.append("")
    lines += ["Mean final evaluation return per cell (95% bootstrap interval over trials; normalized in brackets; "
              "-: the agent does not play the task):", "",
              "| task | random | reference | " + " | ".join(results["agents"]) + " |",
              "|---" * (len(results["agents"]) + 3) + "|"]
    cells = {(c["agent"], c["task"]): c for c in results["cells"]}
    for task in results["tasks"]:
        norm = results["normalization"][task]
        entries = []
        for agent in results["agents"]:
            c = cells.get((agent, task))
            if c is None or c["state"] != "scored":
                entries.append("-" if c is None else f"[{c['state']}]({c['spec']})")
                continue
            normalized = "" if c["normalized"] is None else f" [{c['normalized']:.2f}]"
            entries.append(f"[{_number(c['mean'])}]({c['spec']}) ({_interval(c['mean_ci95'])}){normalized}")
        lines.append(f"| {task} | {_number(norm['random'])} | {_number(norm['reference'])} | " + " | ".join(entries) + " |")
    lines += ["", "Learning curves (mean training episode return over trials, with its 95% bootstrap band):", ""]
    lines += [f"![{task}]({curve_figure(task)})" for task in results["tasks"]
              if any(c["task"] == task and c["state"] == "scored" for c in results["cells"])]
    unscored = [c for c in results["cells"] if c["state"] != "scored"]
    if unscored:
        lines += ["", "Cells not scored:", ""]
        lines += [f"* {c['agent']} on {c['task']}: {c['state']}" + (f" ({c['error']})" if c.get("error") else "")
                  for c in unscored]
    return "\n".join(lines) + "\n"


def write_markdown(results: dict, path: Path) -> Path:
    atomic_write_text(path, markdown(results))
    return path


def _svg(out: Path, name: str) -> str:
    """A written figure inline (its XML declaration dropped), or nothing."""
    path = out / name
    if not path.is_file():
        return ""
    text = path.read_text(encoding="utf-8")
    return text[text.index("<svg"):] if "<svg" in text else ""


def html(results: dict, out: Path) -> str:
    """One self-contained page: warnings, aggregates, probabilities of improvement, cells (each linking to its
    spec), the performance profiles and learning curves inline."""
    agg = results["aggregates"]
    body = [f"<h1>Leaderboard {escape(results['board'])}</h1>",
            f"<p>{escape(results['description'])}</p>" if results["description"] else "",
            f"<p><small>{len(results['agents'])} agents x {len(results['tasks'])} tasks, {results['trials']} trials per "
            f"cell unless an agent says otherwise; zoo {escape(results['zoo_version'])}.</small></p>"]
    if results["warnings"]:
        body.append("<div class=warnings><b>Warnings</b><ul>" + "".join(f"<li>{escape(w)}</li>" for w in results["warnings"])
                    + "</ul></div>")
    if agg["aggregates"]:
        head = "<tr><th class=name>agent</th>" + "".join(f"<th>{n}</th><th>95% interval</th>"
                                                          for n in AGGREGATE_NAMES.values()) + "</tr>"
        rows = [f"<tr><td class=name>{escape(agent)}</td>" + "".join(
            f"<td>{_number(by_name[k]['value'], 3)}</td><td>{_interval([by_name[k]['low'], by_name[k]['high']])}</td>"
            for k in AGGREGATE_NAMES) + "</tr>" for agent, by_name in agg["aggregates"].items()]
        body += ["<h2>Aggregates</h2>",
                 f"<p>Normalized final returns over {escape(', '.join(agg['tasks']))} ({escape(anchors(results))}), "
                 "with 95% stratified-bootstrap intervals (rliable; Agarwal et al., NeurIPS 2021). Larger is better, "
                 "except the optimality gap.</p>", f"<table>{head}{''.join(rows)}</table>",
                 "<div class=figures>" + _svg(out, PROFILES) + "</div>"]
        if agg["improvement"]:
            names, table = agg["agents"], {(p["x"], p["y"]): p for p in agg["improvement"]}
            head = "<tr><th class=name>P(row &gt; column)</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
            rows = [f"<tr><td class=name>{escape(x)}</td>" + "".join(
                "<td>-</td>" if x == y else f"<td title='95% interval {_interval([table[(x, y)]['low'], table[(x, y)]['high']], 2)}'>"
                f"{table[(x, y)]['value']:.2f}</td>" for y in names) + "</tr>" for x in names]
            body += ["<h2>Probability of improvement</h2><p>The chance that a run of the row agent scores above a run "
                     "of the column agent on a task, averaged over the tasks (hover for the 95% interval).</p>",
                     f"<table>{head}{''.join(rows)}</table>"]
    cells = {(c["agent"], c["task"]): c for c in results["cells"]}
    head = ("<tr><th class=name>task</th><th>random</th><th>reference</th>"
            + "".join(f"<th>{escape(a)}</th>" for a in results["agents"]) + "</tr>")
    rows = []
    for task in results["tasks"]:
        norm = results["normalization"][task]
        entries = []
        for agent in results["agents"]:
            c = cells.get((agent, task))
            if c is None:
                entries.append("<td title='the agent does not play this task'>-</td>")
                continue
            link = escape(c["spec"])
            if c["state"] != "scored":
                entries.append(f"<td class=unscored title='{escape(c.get('error') or '')}'><a href='{link}'>"
                               f"{escape(c['state'])}</a></td>")
                continue
            normalized = "" if c["normalized"] is None else f"<br><small>{c['normalized']:.2f} normalized</small>"
            entries.append(f"<td title='{escape(_interval(c['mean_ci95']))}; returns "
                           f"{escape(' '.join(f'{r:.4g}' for r in c['returns']))}'><a href='{link}'>{_number(c['mean'])}</a>"
                           f"{normalized}</td>")
        rows.append(f"<tr><td class=name>{escape(task)}</td><td>{_number(norm['random'])}</td>"
                    f"<td>{_number(norm['reference'])}</td>{''.join(entries)}</tr>")
    body += ["<h2>Cells</h2><p>Mean final evaluation return of each cell over its trials; each links to the "
             "spec of its run.</p>", f"<table>{head}{''.join(rows)}</table>",
             "<h2>Learning curves</h2><p>Mean training episode return over trials, with its 95% bootstrap band.</p>",
             "<div class=figures>" + "".join(_svg(out, curve_figure(task)) for task in results["tasks"]) + "</div>"]
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
            f"<title>Leaderboard {escape(results['board'])}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + "</body></html>\n")


def write_html(results: dict, out: Path) -> Path:
    path = out / "leaderboard.html"
    atomic_write_text(path, html(results, out))
    return path
