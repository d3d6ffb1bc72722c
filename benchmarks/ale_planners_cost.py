"""CPU-seconds per decision of the ALE paper's planners at the paper's settings, and what an episode costs.

BFS (100,000 frames of search per decision) and UCT (500 simulations, a 300-frame horizon) play the
same game from the same seeded start under the ale2013 protocol, each for --decisions decisions,
measured in process CPU time; the raw emulator's frames per CPU-second are measured in the same run
for scale. Printed: seconds per decision, UCT's over BFS's, and the hours an 18,000-frame episode
(3,600 decisions) would take, with the CPU. The ALE paper reports "on the order of 15 seconds" per
decision (Section 3.2.2).

    python benchmarks/ale_planners_cost.py [--game space_invaders] [--decisions 5]
"""

import argparse
import sys
import time
from pathlib import Path

import numpy as np
from zoo_atari.env import make_atari_env
from zoo_atari.planners.bfs import bfs_action
from zoo_atari.planners.model import EmulatorModel
from zoo_atari.planners.params import BFSParams, UCTParams
from zoo_atari.planners.uct import UCT
from zoo_atari.protocols import Protocol

sys.path.insert(0, str(Path(__file__).parent))
from leaderboard_walltime import cpu_description  # noqa: E402

DECISIONS_PER_EPISODE = 18_000 // 5


def emulator_fps(game: str, frames: int = 20_000) -> float:
    env = make_atari_env(game, Protocol.model_validate({"name": "ale2013"}), seed=0)
    env.reset(seed=0)
    ale, start = env.unwrapped.ale, time.process_time()
    for _ in range(frames):
        ale.act(0)
    return frames / (time.process_time() - start)


def seconds_per_decision(game: str, planner: str, decisions: int) -> float:
    env = make_atari_env(game, Protocol.model_validate({"name": "ale2013"}), seed=0)
    env.reset(seed=0)
    model, rng = EmulatorModel(env, frames=5, max_episode_frames=18_000), np.random.default_rng(0)
    bfs, uct = BFSParams(), UCTParams()
    search = UCT(model, uct.simulations, uct.horizon_frames // 5, uct.exploration, uct.gamma)
    spent = 0.0
    for _ in range(decisions):
        start = time.process_time()
        action = bfs_action(model, bfs.max_frames // 5, bfs.gamma, rng) if planner == "bfs" else search.choose(rng)
        spent += time.process_time() - start
        env.step(action)
        search.advance(action)
    env.close()
    return spent / decisions


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="space_invaders")
    parser.add_argument("--decisions", type=int, default=5)
    args = parser.parse_args()
    print(f"CPU: {cpu_description()}")
    print(f"{args.game}: raw emulator {emulator_fps(args.game):,.0f} frames per CPU-second")
    cost = {planner: seconds_per_decision(args.game, planner, args.decisions) for planner in ("bfs", "uct")}
    for planner, seconds in cost.items():
        print(f"{planner}: {seconds:.1f} CPU-s per decision over {args.decisions} decisions; an episode of "
              f"{DECISIONS_PER_EPISODE:,} decisions {seconds * DECISIONS_PER_EPISODE / 3600:.1f} CPU-hours")
    print(f"uct / bfs: {cost['uct'] / cost['bfs']:.2f}")


if __name__ == "__main__":
    main()
