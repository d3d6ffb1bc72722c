"""Learning curves at equal step budgets for the substrate's agents (GDI, DiCE, LBC and their ablations) and peers.

Each agent trains `--steps` environment steps per seed on one env spec. The script prints, per agent
and averaged over seeds, the mean raw return of the training episodes that ended in consecutive step
windows, the CPU seconds per run, and the env's own score; it writes every episode to a CSV.

* GOHR: TCE (errors summed over every episode a run finished; an episode's errors are minus its
  return) and how many seeds pass the authors' convergence test (zoo_gohr_study.errors.converged);
* Atari: the mean training return of the last 10% of episodes (zoo report's score without
  evaluation) and its HNS; frames = steps x frame skip;
* anything else (MinAtar, CartPole): that final-10% mean return.

`--substrate-extra` adds fields to the blocks of the substrate agents only (networks, sequence
sizes, gamma), so that peers keep their own settings; `linear-dqn` is the GOHR paper's linear DQN
with the settings of examples/gohr-paper-section5.yaml (GOHR only).

    OMP_NUM_THREADS=1 python benchmarks/learning_curves.py --env "{type: gym, id: CartPole-v1}" --steps 40000 \\
        --agents gdi-i3,gdi-h3,gdi-i3-without-E,ppo,dqn
    OMP_NUM_THREADS=1 python benchmarks/learning_curves.py --env "{type: minatar, game: breakout}" --steps 200000 \\
        --seeds 1 --substrate-extra "network: {torso: minatar, embedding: 128, lstm: 64}"
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

from zoo import FINAL_FRACTION  # noqa: E402

SUBSTRATE_AGENTS = {
    "gdi-i3": "type: gdi-i3",
    "gdi-h3": "type: gdi-h3",
    "gdi-i3-without-E": "type: gdi-i3, ablation: random_selection",
    "gdi-i3-int8": "type: gdi-i3, actor_precision: int8",
    "gdi-h3-int8": "type: gdi-h3, actor_precision: int8",
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
PEERS = {
    "ppo": "type: ppo, n_envs: 8, n_steps: 128",
    "dqn": "type: dqn, learning_starts: 1000, buffer_size: 50000, exploration_fraction: 0.2",
    "linear-dqn": "type: gohr-linear-dqn, replay_size: 1000, batch_size: 128, eps_start: 0.9, eps_end: 0.001, "
                  "eps_decay: 200, loss: mse, mask_actions: false, gamma: 1.0, lr: 0.01, target_period: 200, "
                  "target_unit: episodes",
}
DEFAULT_AGENTS = "gdi-i3,gdi-h3,gdi-i3-without-E,dice,dice-baseline,lbc,lbc-reduce-H,lbc-random,ppo,dqn"


def load(env: str, agent: str, steps: int):
    from zoo import get_registry, load_spec_text

    return load_spec_text(f"env: {env}\nagent: {{{agent}}}\nbudget: {{steps: {steps}}}\n", get_registry())


def run(spec, steps: int, seed: int) -> tuple[np.ndarray, np.ndarray, float]:
    """(step at the end of each training episode, its raw return, CPU seconds of learning)."""
    from zoo import build_trial, get_registry

    with tempfile.TemporaryDirectory() as folder:
        built = build_trial(spec, get_registry(), seed=seed, trial=0, directory=Path(folder))
        start = time.process_time()
        built.agent.learn(steps)
        cpu = time.process_time() - start
        built.agent.close()
        built.logger.close()
        rows = [json.loads(line) for line in (Path(folder) / "metrics.jsonl").read_text().splitlines()]
    episodes = [(r["step"], r["episode_return"]) for r in rows if "episode_return" in r and r["step"] <= steps]
    return np.array([s for s, _ in episodes]), np.array([g for _, g in episodes], float), cpu


def final_score(returns: np.ndarray) -> float:
    return float(returns[-max(1, int(len(returns) * FINAL_FRACTION)):].mean()) if len(returns) else float("nan")


def scorer(spec):
    """(column title, per-seed runs -> summary text) of the env's report."""
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
            score = np.mean([final_score(r) for _, r, _ in runs])
            return f"{score:8.1f} {100 * float(hns(score, ref.random, ref.human)):6.1f}%"

        return f"{'score':>8s} {'HNS':>7s}", atari
    return f"{'final':>8s}", lambda runs: f"{np.mean([final_score(r) for _, r, _ in runs]):8.2f}"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--env", required=True, help="the env block of a spec, in YAML flow style")
    parser.add_argument("--steps", type=int, default=50_000)
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--windows", type=int, default=5)
    parser.add_argument("--agents", default=DEFAULT_AGENTS, help=f"comma-separated, of: {', '.join([*SUBSTRATE_AGENTS, *PEERS])}")
    parser.add_argument("--substrate-extra", default="", help="fields added to every substrate agent's block (YAML flow)")
    parser.add_argument("--csv", default="learning-curves.csv")
    args = parser.parse_args()
    torch.set_num_threads(1)
    extra = f", {args.substrate_extra}" if args.substrate_extra else ""
    blocks = {**{name: block + extra for name, block in SUBSTRATE_AGENTS.items()}, **PEERS}
    edges = np.linspace(0, args.steps, args.windows + 1)
    names = args.agents.split(",")
    first = load(args.env, blocks[names[0]], args.steps)
    skip = first.env.protocol.frame_skip if first.env.type == "atari" else 1
    title, score = scorer(first)
    with open(args.csv, "w", newline="") as handle:
        out = csv.writer(handle)
        out.writerow(["agent", "seed", "step", "episode_return"])
        print(f"{args.env}, substrate agents with {{{extra[2:]}}}: {args.steps} steps ({args.steps * skip} frames), "
              f"{args.seeds} seeds; mean training episode return per step window")
        print(f"{'agent':18s}" + "".join(f"{int(b):>9d}" for b in edges[1:]) + f"{'CPU-s':>7s} {title}")
        for name in names:
            spec = load(args.env, blocks[name], args.steps)
            runs = [run(spec, args.steps, seed) for seed in range(args.seeds)]
            curves = []
            for seed, (steps, returns, _) in enumerate(runs):
                out.writerows([name, seed, s, g] for s, g in zip(steps, returns))
                inside = [(steps > lo) & (steps <= hi) for lo, hi in zip(edges[:-1], edges[1:])]
                curves.append([returns[m].mean() if m.any() else np.nan for m in inside])
            mean = np.nanmean(np.array(curves), axis=0)
            cpu = np.mean([r[2] for r in runs])
            print(f"{name:18s}" + "".join(f"{v:9.2f}" for v in mean) + f"{cpu:7.0f} {score(runs)}", flush=True)


if __name__ == "__main__":
    main()
