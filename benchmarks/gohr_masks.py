"""Masked against unmasked substrate agents on the GOHR board's rules and budget, beside the random legal-move player.

The GOHR board (leaderboards/gohr-v1.yaml) plays the paper's four rules on boards of 9 pieces (4 shapes,
4 colors), episodes cut at 100 moves, 4,000 moves per trial. Its substrate agents choose among all 144
moves, most of which address an empty cell (an error); with ``mask_actions: true`` they choose among
the moves of occupied cells, as the random legal-move player (``random-legal``) does. Each (rule,
agent, seed) is one ``zoo`` run under OUT/RULE/AGENT/seed-S, made and trained as `zoo train` does; a
finished run is read, not trained again, and an unfinished one is resumed, so the script can be run in
pieces. The metric is the board's: the terminal cumulated errors (TCE), the errors summed over every
board finished within the budget (lower is better). Per rule the script prints a markdown table: per
agent the median and mean TCE over seeds with 95% percentile-bootstrap intervals, and the one-sided
Mann-Whitney U tests that the agent makes fewer errors than the random legal-move player and, for a
masked agent, than the same agent unmasked.

Over two or more rules it then prints the board's kind of summary (rliable; Agarwal et al., 2021): each
run's score is the share of the random legal-move player's errors it avoided on its rule (1 - TCE / the
random player's mean TCE there: 0 is random legal play, 1 no error), aggregated over rules and seeds as
an interquartile mean with its stratified-bootstrap interval, and, when ``ppo`` ran, the probability
that a run of the agent beats a run of SB3's PPO on a rule. The cpu_small columns (``gdi-i3``, ``dice``,
...: unmasked, as on the board) are the substrate agents before their search, the ``-gohr`` columns after.

``--steps`` trains longer than the board (runs of another budget belong in another OUT).

    OMP_NUM_THREADS=1 nice -n 19 python benchmarks/gohr_masks.py OUT [--seeds 5] [--rules paper/color_match,...]
                                                                     [--agents ...] [--steps 4000]
"""

from __future__ import annotations

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402
from substrate_ablations import describe, one_sided_p, train_cell  # noqa: E402

from zoo import ZooError  # noqa: E402

RULES = ("paper/color_match", "paper/clockwise", "paper/b23_then_b01", "paper/b3_then_b1")
ENV = "{type: gohr, rule: RULE, horizon: 100, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}"
STEPS = 4000
_CELLS = "reuse: 8, length: 10, burn_in: 5, network: {torso: cells, hidden: [64], embedding: 64, lstm: 64}"
#: agent -> its spec's agent block: the board's settings (leaderboards/gohr-v1.yaml), each agent's own meta-controller
AGENTS = {
    "random-legal": "{type: random-legal}",
    "linear-dqn": "{type: gohr-linear-dqn, replay_size: 1000, batch_size: 128, eps_start: 0.9, eps_end: 0.001, "
                  "eps_decay: 200, loss: mse, mask_actions: false, gamma: 1.0, lr: 0.01, target_period: 200, "
                  "target_unit: episodes}",
    "ppo": "{type: ppo, n_steps: 512, n_envs: 4, batch_size: 256, learning_rate: 0.0005, gamma: 0.9, ent_coef: 0.01}",
    "gdi-i3": f"{{type: gdi-i3, preset: cpu_small, gamma: 0.9, {_CELLS}}}",
    "gdi-h3": f"{{type: gdi-h3, preset: cpu_small, gamma: 0.9, {_CELLS}}}",
    "dice": f"{{type: dice, preset: cpu_small, gamma: 0.9, {_CELLS}}}",
    "gdi-i3-masked": f"{{type: gdi-i3, preset: cpu_small, gamma: 0.9, mask_actions: true, {_CELLS}}}",
    "lbc": f"{{type: lbc, preset: cpu_small, {_CELLS}, members: [{{gamma: 0.9, shaping: rs1}}, "
           "{gamma: 0.95, shaping: rs2}, {gamma: 0.85, shaping: rs3}]}",
    "lbc-masked": f"{{type: lbc, preset: cpu_small, mask_actions: true, {_CELLS}, members: [{{gamma: 0.9, shaping: rs1}}, "
                  "{gamma: 0.95, shaping: rs2}, {gamma: 0.85, shaping: rs3}]}",
    # the searched `gohr` presets (masked; docs/substrate.md), under their agents' own meta-controllers as searched
    "gdi-i3-gohr": "{type: gdi-i3, preset: gohr}",
    "gdi-h3-gohr": "{type: gdi-h3, preset: gohr}",
    "dice-gohr": "{type: dice, preset: gohr}",
    "lbc-gohr": "{type: lbc, preset: gohr}",
}


def spec_text(rule: str, agent: str, seed: int, steps: int = STEPS) -> str:
    return (f"name: {agent}-seed-{seed}\nenv: {ENV.replace('RULE', rule)}\nagent: {AGENTS[agent]}\n"
            f"budget: {{steps: {steps}, checkpoint_every: {steps // 2}}}\ntrials: 1\nseeds: [{seed}]\n"
            "logging: {tensorboard: false, progress: false, keep_checkpoints: 1}\n")


def tce(folder: Path) -> tuple[float, float]:
    """(TCE, CPU seconds) of a finished run: minus the sum of its finished episodes' returns (-1 per error)."""
    from zoo import RunFolder

    trial = RunFolder(folder).trial_dir(0)
    rows = [json.loads(line) for line in (trial / "metrics.jsonl").read_text().splitlines()]
    errors = -sum(row["episode_return"] for row in rows if "episode_return" in row)
    return float(errors), float(json.loads((trial / "result.json").read_text())["cpu_seconds"])


def table(scores: dict[str, list[float]]) -> str:
    lines = ["| agent | seeds | median TCE [95% CI] | mean TCE [95% CI] | p (fewer errors than random-legal) "
             "| p (masked < unmasked) |", "|---|---|---|---|---|---|"]
    for agent, values in scores.items():
        vs_random = "" if agent == "random-legal" else f"{one_sided_p(-np.asarray(values), -np.asarray(scores['random-legal'])):.2g}"
        unmasked = agent.removesuffix("-masked")
        vs_unmasked = (f"{one_sided_p(-np.asarray(values), -np.asarray(scores[unmasked])):.2g}"
                       if agent.endswith("-masked") and unmasked in scores else "")
        lines.append(f"| {agent} | {len(values)} | {describe(values)} | {vs_random} | {vs_unmasked} |")
    return "\n".join(lines)


def summary(tces: dict[str, dict[str, list[float]]], *, reps: int = 2000) -> str:
    """Markdown over the rules of `tces` (rule -> agent -> TCE per seed): each agent's IQM of the share of random
    legal play's errors avoided, and P(a run beats a PPO run) when PPO ran, both with 95% bootstrap intervals."""
    from zoo_board.aggregates import aggregate_estimates, improvement_probabilities, normalized

    rules = list(tces)
    agents = [agent for agent in tces[rules[0]] if agent != "random-legal"]
    scores = {agent: np.column_stack([normalized(tces[rule][agent], np.mean(tces[rule]["random-legal"]), 0.0)
                                      for rule in rules]) for agent in agents}
    estimates = aggregate_estimates(scores, reps=reps)
    beats = improvement_probabilities(scores, reps=reps) if "ppo" in scores else {}
    lines = ["| agent | IQM [95% CI] | P(run beats a PPO run) [95% CI] |", "|---|---|---|"]
    for agent in sorted(agents, key=lambda a: -estimates[a]["iqm"].value):
        iqm = estimates[agent]["iqm"]
        vs_ppo = beats.get((agent, "ppo"))
        lines.append(f"| {agent} | {iqm.value:.2f} [{iqm.low:.2f}, {iqm.high:.2f}] | "
                     + (f"{vs_ppo.value:.2f} [{vs_ppo.low:.2f}, {vs_ppo.high:.2f}] |" if vs_ppo else "|"))
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder of the runs (finished runs in it are read, not retrained)")
    parser.add_argument("--seeds", type=int, default=5)
    parser.add_argument("--steps", type=int, default=STEPS, help=f"moves per run (default: the board's {STEPS})")
    parser.add_argument("--rules", default=",".join(RULES), help=f"comma-separated, of: {', '.join(RULES)}")
    parser.add_argument("--agents", default=",".join(AGENTS), help=f"comma-separated, of: {', '.join(AGENTS)}")
    args = parser.parse_args()
    rules, agents = args.rules.split(","), args.agents.split(",")
    for given, known, what in ((rules, RULES, "rule"), (agents, AGENTS, "agent")):
        unknown = [name for name in given if name not in known]
        if unknown:
            parser.error(f"unknown {what} {unknown[0]!r}; the {what}s are {', '.join(known)}")
    if "random-legal" not in agents:
        parser.error("--agents must include random-legal (every test is against it)")
    if args.steps < 1:
        parser.error("--steps must be positive")
    if args.seeds < 2:
        parser.error("--seeds must be at least 2 (the tests compare samples)")
    if args.out.exists() and not args.out.is_dir():
        parser.error(f"{args.out} is a file; OUT is the folder of the runs")

    import torch

    torch.set_num_threads(1)
    print(f"cpu: {cpu_description()}")
    tces = {}
    for rule in rules:
        started, scores, cpu = time.perf_counter(), {}, 0.0
        for agent in agents:
            values = []
            for seed in range(args.seeds):
                folder = args.out / rule.replace("/", "-") / agent / f"seed-{seed}"
                try:
                    train_cell(folder, spec_text(rule, agent, seed, args.steps))
                except ZooError as exc:
                    raise SystemExit(f"{folder}: {exc}") from None
                errors, seconds = tce(folder)
                values.append(errors)
                cpu += seconds
            scores[agent] = values
        tces[rule] = scores
        print(f"\n{rule}: {args.steps} moves per run, seeds 0-{args.seeds - 1}; training {cpu / 60:.1f} CPU-min over all "
              f"runs, this invocation {(time.perf_counter() - started) / 60:.1f} wall-min\n\n{table(scores)}")
    if len(rules) > 1 and len(agents) > 1:
        print(f"\nOver the {len(rules)} rules, {args.seeds} seeds each: the share of random legal play's errors avoided "
              f"(rliable, 2,000 stratified-bootstrap resamples)\n\n{summary(tces)}")


if __name__ == "__main__":
    main()
