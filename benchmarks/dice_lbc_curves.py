"""Learning curves at equal step budgets: DiCE vs its baseline and ablations, LBC vs its ablations.

Each agent trains `--steps` environment steps per seed on one env spec (`--agent-extra` adds the
same fields to every agent, e.g. a small network for Atari); the script prints the mean raw return
of consecutive windows of finished training episodes (per agent, averaged over seeds), the CPU
seconds per run, and the score of the env's own report, and writes every episode to a CSV:

* GOHR: TCE (the terminal cumulated error: errors summed over the episodes a run finished) and how
  many seeds pass the authors' convergence test (zoo_gohr_study.errors.converged);
* Atari: the mean training return of the last 10% of episodes (zoo report's score without
  evaluation) and its HNS from zoo_atari's score table; frames = steps x frame skip.

    OMP_NUM_THREADS=1 python benchmarks/dice_lbc_curves.py --env "{type: gohr, rule: paper/color_match}" --steps 100000
    OMP_NUM_THREADS=1 python benchmarks/dice_lbc_curves.py --env "{type: atari, game: Breakout, protocol: {name: agent57}}" \
        --steps 12500 --agent-extra "network: {torso: nature, embedding: 128, lstm: 64}"
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import tempfile
import time
from pathlib import Path

os.environ.setdefault("OMP_NUM_THREADS", "1")

import numpy as np  # noqa: E402
import torch  # noqa: E402

from zoo.report import FINAL_FRACTION  # noqa: E402

AGENTS = {
    "dice": "type: dice",
    "dice-baseline": "type: dice, ablation: baseline",
    "dice-random": "type: dice, ablation: random",
    "dice-entropy": "type: dice, ablation: entropy",
    "lbc": "type: lbc",
    "lbc-reduce-H": "type: lbc, ablation: reduce_H",
    "lbc-reduce-H-Psi": "type: lbc, ablation: reduce_H_and_Psi",
    "lbc-random": "type: lbc, ablation: random_selection",
    "lbc-no-ucb": "type: lbc, ablation: no_ucb",
}


def load(env: str, agent: str, steps: int):
    from zoo.registry import get_registry
    from zoo.spec import load_spec_text

    return load_spec_text(f"env: {env}\nagent: {{{agent}}}\nbudget: {{steps: {steps}}}\n", get_registry())


def run(spec, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(step at the end of each training episode, its raw return, CPU seconds of learning)."""
    from zoo.registry import get_registry
    from zoo.run import build_trial

    with tempfile.TemporaryDirectory() as folder:
        built = build_trial(spec, get_registry(), seed=seed, trial=0, directory=Path(folder), tensorboard=False)
        start = time.process_time()
        built.agent.learn(steps)
        cpu = time.process_time() - start
        built.agent.close()
        built.logger.close()
        rows = [json.loads(line) for line in (Path(folder) / "metrics.jsonl").read_text().splitlines()]
    episodes = [(r["step"], r["episode_return"]) for r in rows if "episode_return" in r]
    return np.array([s for s, _ in episodes]), np.array([g for _, g in episodes], float), cpu


def scorer(spec):
    """(column title, per-seed scores -> summary text) of the env's report."""
    if spec.env.type == "gohr":
        from zoo_gohr_study.errors import converged

        pieces = spec.env.board.min_objects

        def gohr(runs):
            errors = [np.rint(-returns).astype(np.int64) for _, returns, _ in runs]
            passed = sum(bool(converged(e[None], pieces)[0]) for e in errors)
            return f"{np.mean([e.sum() for e in errors]):9.0f} {passed}/{len(runs)}"

        return f"{'TCE':>9s} C.", gohr
    if spec.env.type == "atari":
        from zoo_atari.games import resolve_game
        from zoo_atari.scores import hns, references

        ref = references()[resolve_game(spec.env.game)]

        def atari(runs):
            score = np.mean([r[-max(1, int(len(r) * FINAL_FRACTION)):].mean() for _, r, _ in runs])
            return f"{score:8.1f} {100 * float(hns(score, ref.random, ref.human)):6.1f}%"

        return f"{'score':>8s} {'HNS':>7s}", atari
    return "", lambda runs: ""


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="the env block of a spec, in YAML flow style")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--agents", default="dice,dice-baseline,lbc,lbc-reduce-H,lbc-reduce-H-Psi,lbc-random")
    parser.add_argument("--agent-extra", default="", help="fields added to every agent block, in YAML flow style")
    parser.add_argument("--csv", default="dice-lbc-curves.csv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    extra = f", {args.agent_extra}" if args.agent_extra else ""
    edges = np.linspace(0, args.steps, args.windows + 1)
    spec = load(args.env, AGENTS["dice"] + extra, args.steps)
    skip = spec.env.protocol.frame_skip if spec.env.type == "atari" else 1
    title, score = scorer(spec)
    with open(args.csv, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["agent", "seed", "step", "episode_return"])
        print(f"{args.env} {extra[2:]}: {args.steps} steps ({args.steps * skip} frames), {args.seeds} seeds; "
              "mean training episode return per step window")
        print(f"{'agent':18s}" + "".join(f"{int(b):>9d}" for b in edges[1:]) + f"{'CPU-s':>7s} {title}")
        for name in args.agents.split(","):
            spec = load(args.env, AGENTS[name] + extra, args.steps)
            runs = [run(spec, args.steps, seed) for seed in range(args.seeds)]
            curves = []
            for seed, (steps, returns, _) in enumerate(runs):
                out.writerows([name, seed, s, g] for s, g in zip(steps, returns))
                inside = [(steps > lo) & (steps <= hi) for lo, hi in zip(edges[:-1], edges[1:])]
                curves.append([returns[m].mean() if m.any() else np.nan for m in inside])
            mean = np.nanmean(np.array(curves), axis=0)
            cpu = np.mean([r[2] for r in runs])
            print(f"{name:18s}" + "".join(f"{v:9.1f}" for v in mean) + f"{cpu:7.0f} {score(runs)}", flush=True)


if __name__ == "__main__":
    main()
