"""``zoo report`` and ``zoo compare``: dispatch to the reporter of each run's environment.

Every group of runs gets the generic report here: returns per trial, learning curves with bootstrap
bands, and U-tests between runs. Plugins register reporters for their environments (GOHR's cumulative
errors, Atari's normalised scores), whose files are added to it; a reporter that writes ``report.md``
or ``summary.json`` itself replaces the generic ones.
"""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import numpy as np

from zoo import (
    Registry,
    RunFolder,
    ZooError,
    atomic_write_text,
    blame,
    final_returns,
    read_json,
    suspect,
    trial_returns,
)

from .caveats import annotate_report, caveats
from .reporters import REPORTERS, ReporterEntry
from .stats import bootstrap_ci, one_sided_u_tests, too_few_to_test

log = logging.getLogger("zoo")

def reporter_for(registry: Registry, env: str) -> ReporterEntry | None:
    """The registered reporter of an environment, if a plugin provides one."""
    for entry in registry.entries.get(REPORTERS.name, {}).values():  # none without this plugin
        if env in entry.envs:
            return entry
    return None


def open_runs(paths: list[Path]) -> list[RunFolder]:
    """The run folders at `paths` (`report` says which did not finish)."""
    folders = [RunFolder(Path(p)) for p in paths]
    for folder in folders:
        folder.manifest()  # a clear error for anything that is not a run folder
    return folders


def report(registry: Registry, runs: list[RunFolder], out: Path) -> list[Path]:
    """Write the reports of `runs` into `out`, one group per environment; returns the files written."""
    out.mkdir(parents=True, exist_ok=True)
    groups: dict[str, list[RunFolder]] = {}
    for run in runs:
        groups.setdefault(run.manifest()["env"], []).append(run)
    written: list[Path] = []
    for env, group in sorted(groups.items()):
        entry = reporter_for(registry, env)
        target = out if len(groups) == 1 else out / env
        target.mkdir(parents=True, exist_ok=True)
        generic = generic_report(group, target)
        added = _reporter_files(entry, group, target) if entry is not None else []
        written += [path for path in generic if path not in added] + added  # a reporter's file replaces its namesake
    annotate_report(written, runs)  # unfinished runs and lost rows, in every report
    return written


def _reporter_files(entry: ReporterEntry, group: list[RunFolder], target: Path) -> list[Path]:
    """What a plugin's reporter writes; an exception of its own is one line naming the plugin and the reporter."""
    try:
        return list(entry.report(group, target))
    except ZooError:
        raise
    except Exception as exc:
        failure = blame(exc, suspect("reporter", entry, entry.report))
        if failure is None:
            raise
        raise failure from exc


def compare(registry: Registry, a: RunFolder, b: RunFolder) -> str:
    """A text comparison of two runs of the same environment."""
    env_a, env_b = a.manifest()["env"], b.manifest()["env"]
    if env_a != env_b:
        raise ZooError(f"cannot compare runs of different environments ({env_a} and {env_b})")
    entry = reporter_for(registry, env_a)
    text = entry.compare(a, b) if entry is not None and entry.compare is not None else generic_compare(a, b)
    differences = setting_differences(a, b)
    if differences:
        text = f"warning: the runs differ in {'; '.join(differences)}\n{text}"
    notes = [f"warning: {note}\n" for run in (a, b) for note in caveats(run)]
    return "".join(notes) + text


#: the parts of a resolved spec that make two runs' numbers comparable: the task and the training budget
COMPARABLE_BLOCKS = ("env", "budget")


def setting_differences(a: RunFolder, b: RunFolder) -> list[str]:
    """``key (value in a / value in b)`` for each env or budget setting (rule, protocol, steps...) that differs."""
    import yaml

    flat = []
    for run in (a, b):
        try:
            spec = yaml.safe_load((run.path / "spec.yaml").read_text(encoding="utf-8")) or {}
        except OSError:
            spec = {}
        flat.append(dict(_flatten({block: spec.get(block) for block in COMPARABLE_BLOCKS})))
    keys = sorted(set(flat[0]) | set(flat[1]))
    return [f"{key} ({flat[0].get(key, '-')} / {flat[1].get(key, '-')})" for key in keys if flat[0].get(key) != flat[1].get(key)]


def _flatten(value: Any, prefix: str = ""):
    if isinstance(value, dict):
        for key, item in value.items():
            yield from _flatten(item, f"{prefix}{key}.")
    else:
        yield prefix[:-1], value


def _summary(run: RunFolder) -> dict[str, Any]:
    manifest = run.manifest()
    finals = final_returns(run)
    evals = [read_json(p, dict).get("eval_mean") for p in sorted((run.path / "trials").glob("*/result.json"))]
    evals = [e for e in evals if e is not None]
    row = {"run": manifest["id"], "env": manifest["env"], "agent": manifest["agent"], "status": manifest["status"],
           "trials": len(finals), "final_return_median": float(np.median(finals)) if len(finals) else None,
           "eval_mean": float(np.mean(evals)) if evals else None}
    if len(finals) > 1:
        low, high = bootstrap_ci(finals)
        row["final_return_ci95"] = [float(low), float(high)]
    return row


def generic_report(runs: list[RunFolder], out: Path) -> list[Path]:
    """A table of final and evaluation returns, and median learning curves with 95% bootstrap bands."""
    rows = [_summary(run) for run in runs]
    lines = ["| run | agent | trials | final return (median) | 95% CI | eval mean |", "|---|---|---|---|---|---|"]
    for row in rows:
        ci = row.get("final_return_ci95")
        lines.append(f"| {row['run']} | {row['agent']} | {row['trials']} | {_fmt(row['final_return_median'])} | "
                     f"{f'{ci[0]:.2f} to {ci[1]:.2f}' if ci else '-'} | {_fmt(row['eval_mean'])} |")
    table = out / "report.md"
    atomic_write_text(table, "# Runs\n\n" + "\n".join(lines) + "\n")
    summary = out / "summary.json"
    atomic_write_text(summary, json.dumps(rows, indent=2) + "\n")
    figure = out / "learning_curves.png"
    plot_learning_curves(runs, figure)
    return [table, summary, figure]


def plot_learning_curves(runs: list[RunFolder], path: Path, points: int = 50, title: str = "learning curves") -> Path:
    """Per run, the median over trials of the running-mean training return, with a 95% bootstrap band."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4))
    for run in runs:
        trials = [t for t in trial_returns(run) if t]
        if not trials:
            continue
        end = min(t[-1][0] for t in trials)
        grid = np.linspace(0, end, points)
        curves = np.array([np.interp(grid, [s for s, _ in t], _running_mean([r for _, r in t])) for t in trials])
        median = np.median(curves, axis=0)
        (line,) = ax.plot(grid, median, label=run.manifest()["id"])
        if len(curves) > 1:  # the band in its line's colour (fill_between's own colour cycle skips runs without a band)
            low, high = bootstrap_ci(curves, axis=0, resamples=2000)
            ax.fill_between(grid, low, high, color=line.get_color(), alpha=0.25, label=f"{run.manifest()['id']}: 95% CI of the median")
    ax.set_xlabel("environment steps")
    ax.set_ylabel("episode return (running mean, median over trials)")
    ax.set_title(title)
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def _running_mean(values: list[float], window: int = 10) -> np.ndarray:
    values = np.asarray(values, dtype=float)
    cumulative = np.cumsum(np.insert(values, 0, 0.0))
    counts = np.minimum(np.arange(1, len(values) + 1), window)
    return (cumulative[1:] - cumulative[np.maximum(0, np.arange(1, len(values) + 1) - window)]) / counts


def generic_compare(a: RunFolder, b: RunFolder) -> str:
    """One-sided U-tests between the final returns of the trials of two runs."""
    fa, fb = final_returns(a), final_returns(b)
    if len(fa) == 0 or len(fb) == 0:
        raise ZooError("both runs need finished episodes to compare")
    ida, idb = a.manifest()["id"], b.manifest()["id"]
    lines = [f"{ida}: median final return {np.median(fa):.3f} over {len(fa)} trial(s)",
             f"{idb}: median final return {np.median(fb):.3f} over {len(fb)} trial(s)"]
    refusal = too_few_to_test(len(fa), len(fb))
    if refusal:
        return "\n".join(lines + [refusal])
    tests = one_sided_u_tests(fa, fb)
    return "\n".join(lines + [f"Mann-Whitney U = {tests['u']:.1f}; p({ida} > {idb}) = {tests['p_greater']:.4g}; "
                              f"p({ida} < {idb}) = {tests['p_less']:.4g}"])


def _fmt(value) -> str:
    return "-" if value is None else f"{value:.2f}"
