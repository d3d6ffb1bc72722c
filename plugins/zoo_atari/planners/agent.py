"""The planners as zoo agents: ``bfs`` and ``uct`` play whole episodes, planning every decision.

Planning learns nothing, so training is playing: each episode of the budget is one game played
with search from the env's state, and its return is logged. Evaluation is the played episodes (the
ALE paper scores a planner by the mean of the 10 episodes it played): ``evaluate(k)`` returns the
last k played, so a spec sets ``eval_episodes`` to at most its ``episodes``. Checkpoints fall
between episodes, with the reset count, the random generator and the played returns; episodes
reset as the ALE baselines do (`zoo_atari.baselines`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from zoo import Agent, EpisodeResets, Params, TrialContext, ZooError

from ..baselines import episode_seed
from .bfs import bfs_action
from .model import EmulatorModel, decision_frames
from .params import BFSParams, UCTParams
from .uct import UCT


class PlannerAgent(Agent):
    """Plays episodes choosing each action by search on the env's own emulator; `plan` is the planner."""

    exact_resume = True

    def __init__(self, params: Params, context: TrialContext):
        self.params, self.context = params, context
        budget = context.budget
        if budget.episodes is not None and budget.eval_episodes > budget.episodes:
            raise ZooError(f"budget.eval_episodes {budget.eval_episodes} is more than the {budget.episodes} episodes a "
                           f"planner plays; its evaluation is the episodes it played: set eval_episodes <= episodes")
        self.env = context.make_env(context.seed)
        if not hasattr(getattr(self.env.unwrapped, "ale", None), "cloneState"):
            self.env.close()
            raise ZooError(f"agent {params.type} plans on an ALE-like env with clone/restore: env.type atari or "
                           f"synthetic-atari, not {type(self.env.unwrapped).__name__}")
        self.frames, cap = decision_frames(context.env_params)
        self.model = EmulatorModel(self.env, self.frames, cap)
        self.rng = np.random.default_rng(context.seed)
        self.resets = EpisodeResets(episode_seed(context.seed, 0))
        self.returns: list[float] = []

    def plan(self) -> int:
        """The action to play from the env's current state."""
        raise NotImplementedError

    def new_episode(self) -> None:
        """Forget what was planned in the last episode."""

    def played(self, action: int) -> None:
        """`action` was just played."""

    def train_step(self) -> None:
        """One episode, planning every decision."""
        self.env.reset(seed=self.resets.next_seed())
        self.new_episode()
        total, steps, done = 0.0, 0, False
        while not done:
            action = self.plan()
            _, reward, terminated, truncated, _ = self.env.step(action)
            self.played(action)
            total, steps, done = total + float(reward), steps + 1, terminated or truncated
        self._steps += steps
        self.episodes += 1
        self.returns.append(total)
        self.context.logger.log(self._steps, episode_return=total, episode_length=steps)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """The returns of the last `episodes` played episodes (`seed` is unused: they were played already)."""
        if episodes > len(self.returns):
            raise ZooError(f"a planner's evaluation is the episodes it played: {episodes} asked, "
                           f"{len(self.returns)} played; set budget.eval_episodes <= the episodes played")
        return self.returns[len(self.returns) - episodes:]

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        self.save_state(directory, "planner.json", rng=self.rng, resets=self.resets.count, returns=self.returns)

    def load(self, directory: Path) -> None:
        state = self.load_state(directory, "planner.json", rng=self.rng)
        self.returns = [float(r) for r in state["returns"]]
        self.resets.replay(self.env, state["resets"])

    def close(self) -> None:
        self.env.close()


class BFSAgent(PlannerAgent):
    def __init__(self, params: BFSParams, context: TrialContext):
        super().__init__(params, context)
        self.max_nodes = params.max_frames // self.frames
        if self.max_nodes < self.model.actions:
            raise ZooError(f"agent.max_frames {params.max_frames} buys {self.max_nodes} nodes of {self.frames} frames, "
                           f"fewer than the {self.model.actions} actions; give at least "
                           f"{self.model.actions * self.frames}")

    def plan(self) -> int:
        return bfs_action(self.model, self.max_nodes, self.params.gamma, self.rng)


class UCTAgent(PlannerAgent):
    def __init__(self, params: UCTParams, context: TrialContext):
        super().__init__(params, context)
        self.search = UCT(self.model, params.simulations, max(1, params.horizon_frames // self.frames),
                          params.exploration, params.gamma, params.prune_duplicates, params.normalise_rewards,
                          params.reuse_tree)

    def plan(self) -> int:
        return self.search.choose(self.rng)

    def new_episode(self) -> None:
        self.search.new_episode()

    def played(self, action: int) -> None:
        self.search.advance(action)
