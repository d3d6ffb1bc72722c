"""``zoo report`` for Atari runs: raw scores, HNS, HWRNS/SABER, HWRB, the ALE paper's normalisations.

A trial's score is its mean evaluation return when the run evaluated, else its mean training
return over the last 10% of episodes. Runs are grouped by algorithm (agent, and feature map when
it has one; the ALE paper's reference agents by policy, Const and Perturb scored by their best
action per game: ``reference_agents``); each group gets mean/median/IQM HNS with bootstrap
intervals over its games, the baseline-set normalisation (over the report's ale-baseline runs of
the game, else the ALE paper's 3-agent proxy: ``baseline_set``), the inter-algorithm normalisation
over the groups of learning agents (neither reference agents nor planners), score-distribution
curves and paired Welch tests; the planners (bfs, uct) also get the paper's planning table
(``planning_report``). Every row names the protocol that produced it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import yaml
from zoo_report.report import plot_learning_curves
from zoo_report.stats import too_few_to_test

from zoo import RunFolder, ZooError, atomic_write_text, final_returns, read_json

from . import reference_agents
from . import scores as S
from .baseline_set import baseline_sets, label
from .games import display_name
from .planning_report import PLANNERS, planning_markdown, planning_table


def run_facts(run: RunFolder) -> dict[str, Any]:
    """Game, protocol, algorithm label and per-trial scores of one Atari run."""
    spec = yaml.safe_load((run.path / "spec.yaml").read_text(encoding="utf-8"))
    evals = [read_json(p, dict).get("eval_mean") for p in sorted((run.path / "trials").glob("*/result.json"))]
    evals = [e for e in evals if e is not None]
    trial_scores = [float(e) for e in evals] if evals else [float(v) for v in final_returns(run)]
    agent = spec["agent"]
    features = agent.get("features", {}).get("type") if isinstance(agent.get("features"), dict) else None
    protocol = spec["env"]["protocol"]
    return {"run": run.manifest()["id"], "game": spec["env"]["game"], "protocol": protocol, "agent": agent,
            "algorithm": reference_agents.algorithm(agent) or agent["type"] + (f"/{features}" if features else ""),
            "source": "eval" if evals else "training", "trial_scores": trial_scores}


def score_row(facts: dict[str, Any], baselines: dict[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """The normalised scores of one run's mean score (baseline-set normalised when `baselines` has its game)."""
    row = dict(facts)
    trial_scores = facts["trial_scores"]
    if not trial_scores:
        return row
    score = float(np.mean(trial_scores))
    row["score"] = score
    refs = S.references()
    game = facts["game"]
    if game in refs:
        row.update(S.normalised({game: score}, refs)[game])
        row["record_broken"] = bool(score >= refs[game].record)
    ale_random = S.column("ale-scores.csv", "random")
    if game in ale_random:
        row["ale_random_normalised"] = float(S.random_normalised(score, ale_random[game]))
    if baselines and game in baselines:
        row["baseline_normalised"] = float(S.baseline_normalised(score, baselines[game]["scores"]))
        row["baseline_set"] = label(baselines[game])
    return row


def report_atari(runs: list[RunFolder], out: Path) -> list[Path]:
    """Write report.md, summary.json, score_distribution.png and learning_curves.png for Atari runs."""
    facts = [run_facts(run) for run in runs]
    rows, groups, summary = summarise(facts)
    paths = [out / "report.md", out / "summary.json", out / "score_distribution.png", out / "learning_curves.png"]
    text = _markdown(rows, summary["aggregates"], summary["inter_algorithm"], summary["paired_welch_0.01"])
    text += "\n".join(reference_agents.markdown(groups) + [""]) + planning_markdown(summary["planning"])
    atomic_write_text(paths[0], text)
    atomic_write_text(paths[1], json.dumps(summary, indent=2, default=_plain) + "\n")
    _plot_distribution(groups, paths[2])
    plot_learning_curves(runs, paths[3], title="training returns (running mean of 10 episodes)")
    return paths


def summarise(facts: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], dict[str, list[dict[str, Any]]], dict[str, Any]]:
    """From the runs' facts (``run_facts``): the rows of the runs, the rows of each algorithm (one per game
    for Const and Perturb: their best policy) and every number of the report."""
    baselines = baseline_sets(facts)
    rows = [score_row(f, baselines) for f in facts]
    groups = _by_algorithm([score_row(f, baselines) for f in reference_agents.best_per_game(facts)])
    aggregates = {name: _aggregate(group) for name, group in groups.items()}
    learners = {name: group for name, group in groups.items()
                if not reference_agents.is_reference(name) and name not in PLANNERS}
    inter = _inter_algorithm(learners)
    paired = {f"{a} vs {b}": list(v) for (a, b), v in S.paired_table(
        {name: {r["game"]: r["trial_scores"] for r in group} for name, group in groups.items()}).items()}
    sets = {game: {**entry, "protocols": sorted({_protocol_label(p) for p in entry["protocols"]})}
            for game, entry in baselines.items()}
    summary = {"runs": rows, "aggregates": aggregates, "baseline_sets": sets, "inter_algorithm": inter,
               "best_policies": reference_agents.best_policies(groups), "paired_welch_0.01": paired,
               "planning": planning_table(rows)}
    return rows, groups, summary


def compare_atari(a: RunFolder, b: RunFolder) -> str:
    """Welch's test between the trial scores of two runs of the same game, with their HNS."""
    fa, fb = score_row(run_facts(a)), score_row(run_facts(b))
    if fa["game"] != fb["game"]:
        raise ZooError(f"cannot compare runs of different games ({fa['game']} and {fb['game']})")
    lines = [f"{f['run']} ({f['algorithm']}, {_protocol_label(f['protocol'])}): mean score {f['score']:.2f}, "
             f"HNS {_pct(f.get('hns'))}" for f in (fa, fb)]
    if fa["protocol"] != fb["protocol"]:
        lines.append("WARNING: the runs use different protocols; their scores are not comparable")
    refusal = too_few_to_test(len(fa["trial_scores"]), len(fb["trial_scores"]))
    if refusal:
        return "\n".join(lines + [refusal])
    test = S.welch(fa["trial_scores"], fb["trial_scores"])
    verdict = {1: f"{fa['run']} is better", -1: f"{fb['run']} is better", 0: "no significant difference"}[test["winner"]]
    lines.append(f"Welch t = {test['t']:.3f}, two-tailed p = {test['p']:.4g}: {verdict} at alpha = 0.01")
    return "\n".join(lines)


def _by_algorithm(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        if "score" in row:
            groups.setdefault(row["algorithm"], []).append(row)
    return groups


def _aggregate(group: list[dict[str, Any]]) -> dict[str, Any]:
    with_refs = [r for r in group if "hns" in r]
    out = {"games": len(group), "protocols": sorted({_protocol_label(r["protocol"]) for r in group}),
           "hwrb": sum(r["record_broken"] for r in with_refs)}
    for metric in ("hns", "hwrns", "saber"):
        out[metric] = S.aggregate([r[metric] for r in with_refs])
    out["baseline_normalised"] = S.aggregate([r["baseline_normalised"] for r in group if "baseline_normalised" in r])
    return out


def _inter_algorithm(groups: dict[str, list[dict[str, Any]]]) -> dict[str, Any]:
    names = sorted(groups)
    per_game = {name: {r["game"]: r["score"] for r in group} for name, group in groups.items()}
    games = sorted(set.intersection(*(set(p) for p in per_game.values()))) if names else []
    if len(names) < 2 or not games:
        return {}
    z = S.inter_algorithm(np.array([[per_game[n][g] for n in names] for g in games]))
    return {name: {"games": len(games), "mean": float(np.nanmean(z[:, i])), "median": float(np.nanmedian(z[:, i]))}
            for i, name in enumerate(names)}


def _protocol_label(protocol: dict[str, Any]) -> str:
    from .protocols import Protocol

    overrides = Protocol.model_validate(protocol).overrides()
    return protocol["name"] + (" (" + ", ".join(f"{k}={v}" for k, v in overrides.items()) + ")" if overrides else "")


def _markdown(rows, aggregates, inter, paired) -> str:
    lines = ["# Atari runs", "", "| run | game | protocol | algorithm | trials | score | HNS | HWRNS | SABER | record | "
             "ALE random-norm. | baseline-norm. (set) |", "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(f"| {r['run']} | {display_name(r['game'])} | {_protocol_label(r['protocol'])} | {r['algorithm']} | "
                     f"{len(r['trial_scores'])} ({r['source']}) | {_num(r.get('score'))} | {_pct(r.get('hns'))} | "
                     f"{_pct(r.get('hwrns'))} | {_pct(r.get('saber'))} | {'yes' if r.get('record_broken') else 'no'} | "
                     f"{_num(r.get('ale_random_normalised'))} | {_num(r.get('baseline_normalised'))}"
                     f"{' (' + r['baseline_set'] + ')' if 'baseline_set' in r else ''} |")
    lines += ["", "## Per algorithm (95% bootstrap intervals over games)", "",
              "| algorithm | games | protocols | mean HNS | median HNS | IQM HNS | mean SABER | median SABER | HWRB | "
              "mean baseline-norm. | median baseline-norm. |", "|---|---|---|---|---|---|---|---|---|---|---|"]
    for name, a in sorted(aggregates.items()):
        lines.append(f"| {name} | {a['games']} | {'; '.join(a['protocols'])} | {_stat(a['hns'], 'mean')} | "
                     f"{_stat(a['hns'], 'median')} | {_stat(a['hns'], 'iqm')} | {_stat(a['saber'], 'mean')} | "
                     f"{_stat(a['saber'], 'median')} | {a['hwrb']} | {_num(a['baseline_normalised']['mean'])} | "
                     f"{_num(a['baseline_normalised']['median'])} |")
    if inter:
        lines += ["", "## Inter-algorithm normalised (ALE paper; over the learning agents, without the reference agents)", "",
                  "| algorithm | games | mean | median |",
                  "|---|---|---|---|"]
        lines += [f"| {n} | {v['games']} | {v['mean']:.3f} | {v['median']:.3f} |" for n, v in sorted(inter.items())]
    if paired:
        lines += ["", "## Paired Welch tests (alpha = 0.01): games where the first is better / worse", ""]
        lines += [f"- {pair}: {better} better, {worse} worse" for pair, (better, worse) in sorted(paired.items())]
    return "\n".join(lines) + "\n"


def _plot_distribution(groups, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 4))
    xs = np.linspace(0, 2, 101)
    for name, group in sorted(groups.items()):
        z = [r["hns"] for r in group if "hns" in r]
        if z:
            ax.plot(xs * 100, S.score_distribution(z, xs), label=name)
    ax.set_xlabel("human-normalised score x (%)")
    ax.set_ylabel("fraction of games with HNS >= x")
    ax.set_title("score distribution over games")
    if groups:
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _stat(values: dict[str, Any], name: str) -> str:
    ci = values.get(f"{name}_ci95")
    return _pct(values.get(name)) + (f" [{_pct(ci[0])}, {_pct(ci[1])}]" if ci else "")


def _pct(value) -> str:
    return "-" if value is None or not np.isfinite(value) else f"{100 * value:.1f}%"


def _num(value) -> str:
    return "-" if value is None or not np.isfinite(value) else f"{value:.2f}"


def _plain(value):
    return float(value) if isinstance(value, np.floating) else str(value)
