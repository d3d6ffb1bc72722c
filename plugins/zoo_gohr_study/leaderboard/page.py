"""The leaderboard as one self-contained HTML page: styles, the sorting script and the SVG figures inline."""

from __future__ import annotations

import math
from html import escape
from pathlib import Path

from zoo import atomic_write_text

from .outputs import figure_name, number

STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:1400px}
table{border-collapse:collapse;margin:1em 0;font-size:13px}
th,td{border:1px solid #ccc;padding:3px 7px;text-align:right}
th{background:#f3f3f3;position:sticky;top:0}
td.name,th.name{text-align:left}
table.sortable th{cursor:pointer}
table.sortable th:after{content:" \\2195";color:#aaa}
td.heat a{color:inherit;text-decoration:none;display:block}
td.cnm{background:#444;color:#fff}
td.cnm small{color:#ddd}
td.unscored{background:repeating-linear-gradient(45deg,#fff,#fff 4px,#eee 4px,#eee 8px);color:#a00}
.figures{display:flex;flex-wrap:wrap;gap:1em}
.figure{border:1px solid #ddd;padding:.5em}
.legend span{display:inline-block;margin-right:1em}
small{color:#666}
"""

SORT_SCRIPT = """
document.querySelectorAll('table.sortable').forEach(function(table){
  table.querySelectorAll('th').forEach(function(th, column){
    th.addEventListener('click', function(){
      var body = table.tBodies[0], rows = Array.from(body.rows);
      var up = th.dataset.order !== 'up'; th.dataset.order = up ? 'up' : 'down';
      rows.sort(function(a, b){
        var x = a.cells[column].dataset.key || a.cells[column].textContent;
        var y = b.cells[column].dataset.key || b.cells[column].textContent;
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? x.localeCompare(y) : nx - ny;
        return up ? c : -c;
      });
      rows.forEach(function(r){ body.appendChild(r); });
    });
  });
});
"""

PALETTE = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22",
           "#17becf", "#393b79", "#637939", "#8c6d31", "#843c39", "#7b4173"]


def _mix(t: float, low: tuple[int, int, int], high: tuple[int, int, int]) -> str:
    t = min(1.0, max(0.0, t))
    return "#" + "".join(f"{round(a + (b - a) * t):02x}" for a, b in zip(low, high))


def tce_colour(value: float, low: float, high: float) -> str:
    """Pale green (fewest errors) to orange (most), on a log scale between the board's extremes."""
    if high <= low:
        return "#e8f5e9"
    t = (math.log1p(value) - math.log1p(low)) / (math.log1p(high) - math.log1p(low))
    return _mix(t, (232, 245, 233), (239, 108, 0))


def ratio_colour(ratio: float) -> str:
    """Blue where the row agent beats the column agent, red where it loses; saturated at a ratio of 2^6."""
    t = max(-1.0, min(1.0, math.log2(ratio) / 6))
    return _mix(t, (255, 255, 255), (66, 133, 244)) if t >= 0 else _mix(-t, (255, 255, 255), (219, 68, 55))


def _ranking_table(ranking: list[dict], label: str) -> str:
    head = (f"<tr><th>rank</th><th class=name>{label}</th><th>Perron</th><th>95% interval</th><th>rank interval</th>"
            "<th>Hodge</th><th>95% interval</th><th>scored in</th></tr>")
    rows = []
    for r in ranking:
        ci = lambda b, d=3: "" if b is None else f"{b[0]:.{d}g} to {b[1]:.{d}g}"  # noqa: E731
        ranks = "" if r["perron_rank_ci95"] is None else f"{int(r['perron_rank_ci95'][0])} to {int(r['perron_rank_ci95'][1])}"
        rows.append(f"<tr><td>{r['perron_rank']}</td><td class=name>{escape(r['name'])}</td>"
                    f"<td>{r['perron']:.4f}</td><td>{ci(r['perron_ci95'])}</td><td data-key={r['perron_rank']}>{ranks}</td>"
                    f"<td>{r['hodge']:+.3f}</td><td>{ci(r['hodge_ci95'])}</td><td>{r['games']}</td></tr>")
    return f"<table class=sortable><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _heatmap(results: dict) -> str:
    cells = {(c["agent"], c["rule"]): c for c in results["cells"]}
    finite = [c["median"] for c in results["cells"] if c["state"] == "scored" and c["median"] is not None]
    low, high = (min(finite), max(finite)) if finite else (0.0, 1.0)
    head = "<tr><th class=name>rule</th>" + "".join(f"<th>{escape(a)}</th>" for a in results["agents"]) + "</tr>"
    rows = []
    for rule in results["rules"]:
        entries = []
        for agent in results["agents"]:
            c = cells[(agent, rule)]
            link = escape(c["spec"])
            if c["state"] != "scored":
                title = escape(c.get("error") or c["state"])
                entries.append(f"<td class=unscored title='{title}'><a href='{link}'>{escape(c['state'])}</a></td>")
                continue
            title = escape(f"{agent} on {rule}: median TCE {number(c['median'])} ({c['median_errors']:g} errors), 95% CI "
                           f"{number(c['median_ci95'][0])} to {number(c['median_ci95'][1])}, "
                           f"quartiles {number(c['quartiles'][0])} to {number(c['quartiles'][1])}, "
                           f"{c['converged']} of {c['trials']} trials converged; TCE of the trials: "
                           + " ".join(str(t) for t in sorted(c["tce"])[:100]))
            errors = "" if c["median"] is not None else f", {c['median_errors']:g} errors"
            text = f"{number(c['median'])}<br><small>{c['converged']}/{c['trials']}{errors}</small>"
            if c["median"] is None:
                entries.append(f"<td class='heat cnm' data-key=1e300 title='{title}'><a href='{link}'>{text}</a></td>")
            else:
                entries.append(f"<td class=heat data-key={c['median']} style='background:{tce_colour(c['median'], low, high)}'"
                               f" title='{title}'><a href='{link}'>{text}</a></td>")
        rows.append(f"<tr><td class=name>{escape(rule)}</td>{''.join(entries)}</tr>")
    return f"<table class=sortable><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def _ease_table(rule: str, detail: dict) -> str:
    names = detail["agents"]
    head = "<tr><th class=name>row beats column</th>" + "".join(f"<th>{escape(n)}</th>" for n in names) + "</tr>"
    rows = []
    for a in names:
        entries = []
        for b in names:
            if a == b:
                entries.append("<td>-</td>")
                continue
            w, p = detail["ease_ratio"][a][b], detail["p_fewer_errors"][a][b]
            mark = "*" if p is not None and p < 0.05 else ""
            entries.append(f"<td style='background:{ratio_colour(w)}' title='ease ratio {w:.4g}; one-sided U test "
                           f"p = {p:.3g}'>{w:.3g}{mark}</td>")
        rows.append(f"<tr><td class=name>{escape(a)}</td>{''.join(entries)}</tr>")
    return (f"<div class=figure><b>{escape(rule)}</b><table>{head}{''.join(rows)}</table></div>")


def _curves_svg(rule: str, curves: list[tuple[str, dict, str]], width: int = 420, height: int = 260) -> str:
    """Median cumulative errors by episode with their bootstrap bands, one colour per agent."""
    left, bottom, top, right = 52, 30, 22, 10
    x_max = max(c["episode"][-1] for _, c, _ in curves)
    y_max = max(max(c["high"]) for _, c, _ in curves) or 1.0
    sx = lambda x: left + (width - left - right) * (x / x_max)  # noqa: E731
    sy = lambda y: height - bottom - (height - bottom - top) * (y / y_max)  # noqa: E731
    parts = [f"<svg xmlns='http://www.w3.org/2000/svg' width='{width}' height='{height}' role='img'>",
             f"<text x='{left}' y='14' font-size='12' font-weight='bold'>{escape(rule)}</text>",
             f"<line x1='{left}' y1='{sy(0)}' x2='{width - right}' y2='{sy(0)}' stroke='#888'/>",
             f"<line x1='{left}' y1='{sy(0)}' x2='{left}' y2='{top}' stroke='#888'/>",
             f"<text x='{left - 4}' y='{top + 4}' font-size='10' text-anchor='end'>{y_max:.4g}</text>",
             f"<text x='{left - 4}' y='{sy(0)}' font-size='10' text-anchor='end'>0</text>",
             f"<text x='{width - right}' y='{height - 8}' font-size='10' text-anchor='end'>episode {x_max}</text>",
             f"<text x='12' y='{(height - bottom + top) / 2}' font-size='10' transform='rotate(-90 12 "
             f"{(height - bottom + top) / 2})' text-anchor='middle'>median cumulated errors</text>"]
    for k, (agent, _, colour) in enumerate(curves):
        parts.append(f"<text x='{left + 8}' y='{top + 12 * (k + 1)}' font-size='10' fill='{colour}'>"
                     f"{escape(agent)}</text>")
    for agent, c, colour in curves:
        xs = c["episode"]
        band = [f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, c["high"])]
        band += [f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(reversed(xs), reversed(c["low"]))]
        line = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in zip(xs, c["median"]))
        parts.append(f"<polygon points='{' '.join(band)}' fill='{colour}' fill-opacity='0.18' stroke='none'/>")
        parts.append(f"<polyline points='{line}' fill='none' stroke='{colour}' stroke-width='1.6'>"
                     f"<title>{escape(agent)}</title></polyline>")
    parts.append("</svg>")
    return "".join(parts)


def _rule_ranks(results: dict) -> str:
    """Each agent's ranking of the rules (1: the rule it found easiest), beside the overall rank."""
    per_agent = results["rule_ranking"]["per_agent"]
    agents = [a for a in results["agents"] if a in per_agent]
    ranks = {a: {r["name"]: r["perron_rank"] for r in per_agent[a]["ranking"]} for a in agents}
    overall = {r["name"]: r["perron_rank"] for r in results["rule_ranking"]["overall"]["ranking"]}
    head = ("<tr><th class=name>rule</th><th>overall</th>" + "".join(f"<th>{escape(a)}</th>" for a in agents)
            + "</tr>")
    rows = [f"<tr><td class=name>{escape(rule)}</td><td>{overall.get(rule, '')}</td>"
            + "".join(f"<td>{ranks[a].get(rule, '')}</td>" for a in agents) + "</tr>"
            for rule in sorted(results["rules"], key=lambda r: (overall.get(r, len(overall) + 1), r))]
    return f"<table class=sortable><thead>{head}</thead><tbody>{''.join(rows)}</tbody></table>"


def curve_figures(results: dict) -> dict[str, str]:
    """The median-curve figure (SVG) of every rule that has a scored cell."""
    colours = {agent: PALETTE[k % len(PALETTE)] for k, agent in enumerate(results["agents"])}
    cells = {(c["agent"], c["rule"]): c for c in results["cells"]}
    figures = {}
    for rule in results["rules"]:
        curves = [(a, cells[(a, rule)]["curve"], colours[a]) for a in results["agents"]
                  if cells[(a, rule)]["state"] == "scored"]
        if curves:
            figures[rule] = _curves_svg(rule, curves)
    return figures


def html(results: dict) -> str:
    colours = {agent: PALETTE[k % len(PALETTE)] for k, agent in enumerate(results["agents"])}
    legend = "".join(f"<span style='color:{colours[a]}'>&#9632; {escape(a)}</span>" for a in results["agents"])
    figures = ["<div class=figure>" + svg + "</div>" for svg in curve_figures(results).values()]
    ease = [_ease_table(rule, results["per_rule"][rule]) for rule in results["rules"] if rule in results["per_rule"]]
    unscored = [c for c in results["cells"] if c["state"] != "scored"]
    budget = ", ".join(f"{v:,} {'moves' if k == 'steps' else k}" for k, v in results["budget"].items()
                       if k in ("steps", "episodes"))
    body = [
        f"<h1>Leaderboard {escape(results['board'])}</h1>",
        f"<p>{escape(results['description'])}</p>" if results["description"] else "",
        f"<p><small>{len(results['agents'])} agents x {len(results['rules'])} rules; budget {escape(budget)} per trial "
        f"(unless an agent says otherwise), {results['trials']} trials per cell; zoo {escape(results['zoo_version'])}. "
        "Lower TCE (terminal cumulated error) is better; C.N.M.: convergence not met; C.N.M. trials "
        + ("are all equal in comparisons" if results["cnm"] == "tie" else "are ordered by their errors in comparisons")
        + ", below every converged trial.</small></p>",
        "<h2>Agents</h2><p>Tournament over the rules: the trial pairs each agent won on each rule (ties count "
        "half) are summed, turned into ease ratios and ranked by the Perron eigenvector and by a Hodge "
        "decomposition; intervals resample every cell's trials. Click a header to sort.</p>",
        _ranking_table(results["agent_ranking"]["ranking"], "agent"),
        f"<p><small>Cyclic share of the ease-ratio flow (Hodge): {results['agent_ranking']['hodge_cyclic_share']:.3g}"
        "</small></p>",
        "<h2>Median TCE per cell</h2><p>Each cell: the median TCE and the trials that converged; it links to the "
        "spec of its run. Dark: the median trial did not converge (C.N.M.); hatched: not scored.</p>",
        _heatmap(results),
        "<h2>Rules</h2><p>Tournament over the agents: rules from easiest to hardest.</p>",
        _ranking_table(results["rule_ranking"]["overall"]["ranking"], "rule"),
        "<p>Each agent's own ranking of the rules (1: the rule it made the fewest errors on).</p>",
        _rule_ranks(results),
        f"<h2>Median cumulative errors</h2><p class=legend>{legend}</p>"
        "<p>Median over trials with its 95% bootstrap band.</p>",
        "<div class=figures>" + "".join(figures) + "</div>",
        "<h2>Ease ratios per rule</h2><p>(z<sub>ij</sub> + 1) / (z<sub>ji</sub> + 1), z<sub>ij</sub> the trial pairs "
        "where the row agent made fewer errors; * the one-sided U test says so at p &lt; 0.05.</p>",
        "<div class=figures>" + "".join(ease) + "</div>",
    ]
    if unscored:
        body.append("<h2>Cells not scored</h2><ul>" + "".join(
            f"<li>{escape(c['agent'])} on {escape(c['rule'])}: {escape(c['state'])}"
            + (f" ({escape(c['error'])})" if c.get("error") else "")
            + (f"; {escape(c['progress'])}" if c.get("progress") else "") + "</li>" for c in unscored) + "</ul>")
    noted = [c for c in results["cells"] if c.get("caveats")]
    if noted:
        body.append("<h2>Cells scored on what is left of their metrics</h2><ul>" + "".join(
            f"<li>{escape(c['agent'])} on {escape(c['rule'])}: {escape(note)}</li>"
            for c in noted for note in c["caveats"]) + "</ul>")
    return ("<!DOCTYPE html><html lang=en><head><meta charset=utf-8>"
            f"<title>Leaderboard {escape(results['board'])}</title><style>{STYLE}</style></head><body>"
            + "\n".join(body) + f"<script>{SORT_SCRIPT}</script></body></html>\n")


def write_figures(results: dict, out: Path) -> list[Path]:
    """Each rule's median curves as an SVG file of its own (curves/RULE.svg), for leaderboard.md."""
    (out / "curves").mkdir(parents=True, exist_ok=True)
    written = []
    for rule, svg in curve_figures(results).items():
        written.append(out / figure_name(rule))
        atomic_write_text(written[-1], svg + "\n")
    return written


def write_html(results: dict, path: Path) -> Path:
    atomic_write_text(path, html(results))
    return path
