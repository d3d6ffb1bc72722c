"""SARSA(lambda) learning on ALE training games for a fixed frame budget, against the random agent.

For each game and feature set, trains one SARSA(lambda) agent (ale2013 protocol, the spec's default
parameters) for --frames emulator frames, then evaluates it (epsilon-greedy, learning off); the
random agent (a uniform action per decision) plays the same number of evaluation episodes.
Learning curves (return per training episode against frames) go to OUT/curves.csv and
OUT/curves.png; the table prints final training returns, evaluation means and CPU-seconds.

    python benchmarks/sarsa_learning.py [--frames 300000] [--games freeway space_invaders]
                                        [--features bass ram] [--eval-episodes 3] [--out sarsa-learning]
"""

import os

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMEXPR_NUM_THREADS"):
    os.environ[_var] = "1"

import argparse
import csv
import time
from pathlib import Path
from types import SimpleNamespace

import numpy as np
from zoo_atari.baselines import BaselineAgent, BaselineParams
from zoo_atari.env import make_atari_env
from zoo_atari.protocols import Protocol
from zoo_sarsa.agent import SarsaAgent, SarsaParams

from zoo import get_registry

PROTOCOL = Protocol.model_validate({"name": "ale2013"})


class Curve:
    """A logger stand-in that keeps (decisions, return) of each training episode."""

    def __init__(self):
        self.rows: list[tuple[int, float]] = []

    def log(self, step, episode_return=None, **_):
        if episode_return is not None:
            self.rows.append((int(step), float(episode_return)))


def context(game: str, seed: int, curve: Curve) -> SimpleNamespace:
    return SimpleNamespace(seed=seed, trial=0, logger=curve, make_env=lambda s: make_atari_env(game, PROTOCOL, s))


def train_sarsa(game: str, feature: str, frames: int, eval_episodes: int, seed: int) -> dict:
    curve = Curve()
    agent = SarsaAgent(SarsaParams.model_validate({"features": {"type": feature}}), context(game, seed, curve))
    start = time.process_time()
    while agent.steps * PROTOCOL.frame_skip < frames:
        agent.learn_episodes(1)
    cpu = time.process_time() - start
    evaluation = agent.evaluate(eval_episodes, seed=seed + 1)
    returns = [r for _, r in curve.rows]
    return {"curve": curve.rows, "episodes": len(returns), "first": float(np.mean(returns[:3])),
            "final": float(np.mean(returns[-3:])), "eval": float(np.mean(evaluation)), "cpu": cpu,
            "decisions_per_cpu_s": agent.steps / cpu}


def random_agent(game: str, episodes: int, seed: int) -> float:
    agent = BaselineAgent(BaselineParams(policy="random"), context(game, seed, Curve()))
    return float(np.mean(agent.evaluate(episodes, seed=seed + 1)))


def save_curves(results: dict, out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out.mkdir(parents=True, exist_ok=True)
    with (out / "curves.csv").open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["game", "features", "frames", "episode_return"])
        for (game, feature), result in results.items():
            for decisions, value in result["curve"]:
                writer.writerow([game, feature, decisions * PROTOCOL.frame_skip, value])
    games = sorted({game for game, _ in results})
    fig, axes = plt.subplots(1, len(games), figsize=(5 * len(games), 3.5), squeeze=False)
    for ax, game in zip(axes[0], games):
        for (g, feature), result in sorted(results.items()):
            if g == game:
                frames = [d * PROTOCOL.frame_skip for d, _ in result["curve"]]
                ax.plot(frames, [r for _, r in result["curve"]], label=f"SARSA {feature}")
        ax.axhline(result_random[game], color="grey", linestyle="--", label="random")
        ax.set_title(game)
        ax.set_xlabel("frames")
        ax.set_ylabel("training episode return")
        ax.legend(fontsize="small")
    fig.tight_layout()
    fig.savefig(out / "curves.png", dpi=110)
    plt.close(fig)


result_random: dict[str, float] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--frames", type=int, default=300_000, help="training frames per game and feature set")
    parser.add_argument("--games", nargs="+", default=["freeway", "space_invaders"])
    parser.add_argument("--features", nargs="+", default=["bass", "ram"])
    parser.add_argument("--eval-episodes", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out", type=Path, default=Path("sarsa-learning"))
    args = parser.parse_args()
    get_registry()
    results = {}
    print(f"SARSA(lambda), ale2013, {args.frames:,} training frames each; evaluation over {args.eval_episodes} episodes")
    print(f"{'game':<15} {'agent':<12} {'episodes':>8} {'first 3':>8} {'last 3':>8} {'eval':>8} {'CPU-s':>7} {'dec/CPU-s':>9}")
    for game in args.games:
        result_random[game] = random_agent(game, args.eval_episodes, args.seed)
        print(f"{game:<15} {'random':<12} {'':>8} {'':>8} {'':>8} {result_random[game]:>8.1f}")
        for feature in args.features:
            r = train_sarsa(game, feature, args.frames, args.eval_episodes, args.seed)
            results[(game, feature)] = r
            print(f"{game:<15} {'sarsa/' + feature:<12} {r['episodes']:>8} {r['first']:>8.1f} {r['final']:>8.1f} "
                  f"{r['eval']:>8.1f} {r['cpu']:>7.0f} {r['decisions_per_cpu_s']:>9.0f}")
    save_curves(results, args.out)
    print(f"learning curves: {args.out / 'curves.csv'}, {args.out / 'curves.png'}")


if __name__ == "__main__":
    main()
