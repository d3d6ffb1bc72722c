"""``zoo report`` and ``zoo compare`` for GOHR runs: TCE, curves, U-tests, ease ratios, rankings, C.N.M."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import yaml
from zoo_report.stats import MIN_TEST_TRIALS, bootstrap_ci, one_sided_u_tests, too_few_to_test
from zoo_report.stats.ranking import ease_ratios, hodge_ranking, perron_ranking, u_test_matrix

from zoo import RunFolder, atomic_write_text

from . import figures
from .errors import RunErrors, read_run

BOOTSTRAPS = 50_000  # the paper's resamples for the median bands


def labelled(runs: list[RunFolder]) -> list[RunErrors]:
    """Errors of each run, labelled by run name, or by its id where that name would not tell it apart."""
    ids = [run.manifest()["id"] for run in runs]
    return [read_run(run, label) for run, label in zip(runs, unique_labels([run.manifest()["name"] for run in runs], ids))]


def unique_labels(names: list[str], ids: list[str]) -> list[str]:
    """Each run's name, or its (unique) id where that name is also another run's label.

    Names repeat (two runs of one spec) and a name can equal another run's id: ``foo-2`` beside two
    runs named ``foo``, whose ids are ``foo-1`` and ``foo-2``. Each pass gives the runs that share a
    label their ids, so at least one more run is labelled by id each time and the loop ends, at the
    latest when every label is an id. Ids repeat only for one run given twice or a copied run folder
    (which keeps its manifest); those runs are told apart by their place in the list.
    """
    labels = list(names)
    while len(set(labels)) < len(labels):
        relabelled = [run_id if labels.count(label) > 1 else label for label, run_id in zip(labels, ids)]
        if relabelled == labels:
            return [f"{label} ({place})" if labels.count(label) > 1 else label for place, label in enumerate(labels, 1)]
        labels = relabelled
    return labels


def summarize(runs: list[RunErrors]) -> dict:
    """Every number of the report: per run TCE statistics, and across runs U-tests, ease ratios and rankings."""
    tces = [run.tce for run in runs]
    w = ease_ratios(tces)
    perron = perron_ranking(w)
    hodge, cyclic = hodge_ranking(w)
    rows = []
    for run, tce, score, rating in zip(runs, tces, perron, hodge):
        resolved = yaml.safe_load((run.run.path / "spec.yaml").read_text())
        low, high = bootstrap_ci(tce, resamples=BOOTSTRAPS)
        rows.append({
            "label": run.label, "run": run.run.manifest()["id"], "agent": resolved["agent"]["type"],
            "rule": resolved["env"].get("rule"), "trials": int(len(tce)), "episodes": int(run.errors.shape[1]),
            "median_tce": float(np.median(tce)), "median_tce_ci95": [float(low), float(high)],
            "quartiles": [float(q) for q in np.percentile(tce, [25, 75])], "max_tce": float(tce.max()),
            "not_converged": int((~run.converged).sum()), "perron": float(score), "hodge": float(rating),
        })
    order = sorted(range(len(runs)), key=lambda i: -rows[i]["median_tce"])  # hardest first
    p = u_test_matrix(tces)
    return {
        "runs": rows, "difficulty_order": [runs[i].label for i in order],
        "u_test_p_harder": {runs[i].label: {runs[j].label: _num(p[i, j]) for j in range(len(runs))} for i in range(len(runs))},
        "adjacent_u_tests": [{"harder": runs[i].label, "easier": runs[j].label, "p": float(p[i, j])}
                             for i, j in zip(order, order[1:])],
        "ease_ratio": {runs[i].label: {runs[j].label: float(w[i, j]) for j in range(len(runs))} for i in range(len(runs))},
        "hodge_cyclic_share": cyclic,
    }


def _num(value: float):
    return None if np.isnan(value) else float(value)


def report(runs: list[RunFolder], out: Path) -> list[Path]:
    """Figures 3 (one per run), 4 and 5, the TCE densities, report.md and summary.json."""
    data = labelled(runs)
    summary = summarize(data)
    written = [figures.cumulative_curves(run, out / f"cumulative_errors_{_slug(run.label)}.png") for run in data]
    written += [figures.median_curves(data, out / "median_cumulative_errors.png", BOOTSTRAPS),
                figures.tce_boxes(data, out / "tce_boxplot.png")]
    spread = [run for run in data if len(run.tce) >= MIN_TEST_TRIALS]  # a density of one or two points is no density
    if spread:
        written.append(figures.tce_densities(spread, out / "tce_density.png"))
    atomic_write_text(out / "summary.json", json.dumps(summary, indent=2) + "\n")
    atomic_write_text(out / "report.md", markdown(summary))
    return written + [out / "summary.json", out / "report.md"]


def markdown(summary: dict) -> str:
    """The report's tables."""
    lines = ["# GOHR difficulty report", "",
             "Runs from hardest to easiest by median TCE (terminal cumulated error); C.N.M.: trials whose "
             "errors over the last 150 episodes exceed 0.25% of their moves. Perron: the authors' ranking "
             "(Perron eigenvector of the ease ratios, larger is easier); Hodge: ratings of the Hodge "
             "decomposition of log ease ratios (larger is easier).", "",
             "| run | agent | rule | trials x episodes | median TCE | 95% CI | IQR | max | C.N.M. | Perron | Hodge |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    by_label = {row["label"]: row for row in summary["runs"]}
    for label in summary["difficulty_order"]:
        r = by_label[label]
        lines.append(f"| {label} | {r['agent']} | {r['rule']} | {r['trials']} x {r['episodes']} | {r['median_tce']:g} | "
                     f"{r['median_tce_ci95'][0]:g} to {r['median_tce_ci95'][1]:g} | {r['quartiles'][0]:g} to "
                     f"{r['quartiles'][1]:g} | {r['max_tce']:g} | {r['not_converged']} | {r['perron']:.3f} | {r['hodge']:+.2f} |")
    order = summary["difficulty_order"]
    if len(order) < 2:
        lines += ["", "One run: U-tests, ease ratios and rankings compare two runs or more.", ""]
        return "\n".join(lines)
    lines += ["", "One-sided Mann-Whitney U tests on TCE: p-value that the row's run is harder than the column's "
              f"(none where a run has fewer than {MIN_TEST_TRIALS} trials).", "",
              "| harder \\ easier | " + " | ".join(order) + " |", "|---" * (len(order) + 1) + "|"]
    for a in order:
        cells = ["-" if a == b else "n < 3" if min(by_label[a]["trials"], by_label[b]["trials"]) < MIN_TEST_TRIALS
                 else f"{summary['u_test_p_harder'][a][b]:.3g}" for b in order]
        lines.append(f"| {a} | " + " | ".join(cells) + " |")
    lines += ["", "Ease ratios (z_ij + 1) / (z_ji + 1): how much more often the row's trials beat the column's.", "",
              "| row \\ column | " + " | ".join(order) + " |", "|---" * (len(order) + 1) + "|"]
    for a in order:
        lines.append(f"| {a} | " + " | ".join("-" if a == b else f"{summary['ease_ratio'][a][b]:.3g}" for b in order) + " |")
    lines += ["", f"Share of the ease-ratio flow that is cyclic (Hodge): {summary['hodge_cyclic_share']:.3g}.", ""]
    return "\n".join(lines)


def compare(a: RunFolder, b: RunFolder) -> str:
    """Median TCEs, one-sided U-tests and the ease ratio of two GOHR runs."""
    first, second = labelled([a, b])
    lines = [f"{run.label}: median TCE {np.median(run.tce):g} over {len(run.tce)} trials x {run.errors.shape[1]} episodes, "
             f"{int((~run.converged).sum())} C.N.M." for run in (first, second)]
    refusal = too_few_to_test(len(first.tce), len(second.tce))
    if refusal:
        return "\n".join(lines + [refusal])
    tests = one_sided_u_tests(first.tce, second.tce)
    w = ease_ratios([first.tce, second.tce])
    lines += [f"Mann-Whitney U = {tests['u']:.1f}; p({first.label} harder) = {tests['p_greater']:.4g}; "
              f"p({second.label} harder) = {tests['p_less']:.4g}",
              f"ease ratio {first.label} over {second.label} = {w[0, 1]:.4g}"]
    return "\n".join(lines)


def _slug(label: str) -> str:
    return "".join(ch if ch.isalnum() or ch in "-_" else "_" for ch in label)
