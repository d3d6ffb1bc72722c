"""The ALE paper's reference agents in a report (Bellemare et al. 2013, Sections 3.1.2 and 4.1).

Random, Const and Perturb are three agents: a run of ``ale-baseline`` is reported under
``ale-baseline/<policy>``. Const and Perturb stand for 18 policies each, one per action, and the
paper scores each by its best action on each game. A run with ``action: per_trial`` plays action t
in trial t, so each of its trials is one policy; a run with a fixed action is one policy over all
its trials. Per game, the report keeps the policy with the highest mean score among the agent's
runs of that game.

The inter-algorithm normalisation (Section 4.1.3) takes its range over the learning agents only,
so the reference agents stay out of it; they define the baseline set instead (``baseline_set``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .games import display_name

AGENT = "ale-baseline"
BEST_OF_ACTIONS = ("const", "perturb")


def policy(agent: dict[str, Any]) -> str | None:
    """The reference policy of an agent block (random, const or perturb); None for any other agent."""
    return agent.get("policy", "random") if agent.get("type") == AGENT else None


def algorithm(agent: dict[str, Any]) -> str | None:
    """The report's key of a reference agent, ``ale-baseline/<policy>``; None for any other agent."""
    name = policy(agent)
    return None if name is None else f"{AGENT}/{name}"


def is_reference(algorithm_key: str) -> bool:
    return algorithm_key.startswith(f"{AGENT}/")


def policies(facts: dict[str, Any]) -> list[tuple[str, list[float]]]:
    """The policies one reference run played, each with its trial scores (none for other agents)."""
    agent, scores = facts["agent"], [float(s) for s in facts["trial_scores"]]
    name = policy(agent)
    if name is None or not scores:
        return []
    if name == "random":
        return [("random", scores)]
    if agent.get("action") == "per_trial":
        return [(f"action {t}", [score]) for t, score in enumerate(scores)]
    return [(f"action {agent.get('action', 0)}", scores)]


def best_per_game(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The runs' facts with each game's Const and Perturb runs replaced by their best policy on it.

    The replacement keeps the facts of the run that played the best policy, with that policy's trial
    scores, its name (``best_policy``) and the number of policies it was chosen from (``policies``).
    """
    kept, best = [], {}
    for facts in runs:
        if policy(facts["agent"]) not in BEST_OF_ACTIONS:
            kept.append(facts)
            continue
        key = (facts["algorithm"], facts["game"])
        for name, scores in policies(facts):
            entry = best.get(key)
            count = 1 + (entry["policies"] if entry else 0)
            if entry is None or np.mean(scores) > np.mean(entry["trial_scores"]):
                entry = {**facts, "trial_scores": scores, "best_policy": name}
            best[key] = {**entry, "policies": count}
    return kept + list(best.values())


def best_policies(groups: dict[str, list[dict[str, Any]]]) -> dict[str, dict[str, dict[str, Any]]]:
    """Per Const/Perturb agent and game: the best policy, its run, its score and how many were tried."""
    return {name: {row["game"]: {key: row[key] for key in ("best_policy", "run", "score", "policies")} for row in group}
            for name, group in sorted(groups.items()) if group and "best_policy" in group[0]}


def markdown(groups: dict[str, list[dict[str, Any]]]) -> list[str]:
    """The report section listing the best action of each game for Const and Perturb."""
    table = best_policies(groups)
    if not table:
        return []
    lines = ["", "## Const and Perturb: the best action per game (ALE paper, Section 3.1.2)", "",
             "| agent | game | best policy | of | score | run |", "|---|---|---|---|---|---|"]
    for name, per_game in table.items():
        lines += [f"| {name} | {display_name(game)} | {b['best_policy']} | {b['policies']} | {b['score']:.2f} | {b['run']} |"
                  for game, b in sorted(per_game.items())]
    return lines
