"""Actors: a vector of environments stepped with a stale copy of the network and a per-episode behavior."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import torch

from zoo import Choice, MetaController

from .contracts import BehaviorPolicy
from .inference import Precision, acting_network
from .sequences import SequenceWriter


@dataclass
class Episode:
    """A finished episode: which env slot, its behavior, raw undiscounted return and length."""

    env: int
    choice: Choice
    episode_return: float
    length: int


class VectorActor:
    """Steps a gymnasium vector env (NEXT_STEP autoreset) and writes sequences into `sink`.

    Each env slot acts for a whole episode with the behavior its meta-controller chose at the
    episode's start (`controllers` has one entry per env, or a single shared one) and reports the
    raw return when it ends. Its network is a copy that pulls from `pull()` every `pull_every`
    vector steps, so the behavior lags the learner as in the papers; it acts with that copy or, with
    `precision` int8, with an int8 copy of it built at each new version, calibrated on the current
    observations (see `inference`). The step after an episode ends feeds the final observation
    through the network: that row is the sequence's bootstrap row.

    With `masked`, it reads the legal actions of every env from the env's ``info["action_mask"]``
    after each reset and step, acts with the behavior policy restricted to them (the policy gets them
    as `legal`) and stores them with each row; a row with no legal action counts every action legal.

    It records the actions it sends to the envs since their seeded reset, so that `load_state_dict`
    can bring a new copy of a vector env that is deterministic given its seed to the same state
    (episodes in progress included) by stepping it through them again.
    """

    def __init__(self, envs, net: torch.nn.Module, policy: BehaviorPolicy, controllers: Sequence[MetaController],
                 sink: Callable[[dict], None], *, burn_in: int, length: int, pull: Callable[[], tuple[int, dict]],
                 pull_every: int, generator: torch.Generator, precision: Precision = "float32", masked: bool = False):
        self.envs, self.net, self.policy, self.sink = envs, net, policy, sink
        self.precision, self.acting = precision, net  # reset() pulls and builds the network that acts
        self.num_envs = envs.num_envs
        if len(controllers) not in (1, self.num_envs):
            raise ValueError(f"{len(controllers)} meta-controllers for {self.num_envs} envs: give one or one per env")
        self.controllers = list(controllers)
        self.pull, self.pull_every, self.generator = pull, pull_every, generator
        self.masked = masked
        space = envs.single_observation_space
        self.writer = SequenceWriter(self.num_envs, space.shape, space.dtype, int(envs.single_action_space.n),
                                     net.state_size, burn_in, length, masked)
        self.version = -1
        self.vector_steps = 0
        self.seed = 0
        self.actions = ActionLog(self.num_envs, int(envs.single_action_space.n))

    def controller(self, env: int) -> MetaController:
        return self.controllers[env if len(self.controllers) > 1 else 0]

    def reset(self, seed: int) -> None:
        """Start every env on a fresh episode, the envs reset with `seed`."""
        self.seed = seed
        self.actions.clear()
        self.obs, info = self.envs.reset(seed=seed)
        self.legal = self._legal(info)
        self.state = self.net.initial_state(self.num_envs)
        self.choices = [self.controller(i).sample() for i in range(self.num_envs)]
        self.returns = np.zeros(self.num_envs)
        self.lengths = np.zeros(self.num_envs, np.int64)
        self.ended = np.zeros(self.num_envs, bool)
        for i in range(self.num_envs):
            self.writer.restart(i)
        self._sync(force=True)

    def _legal(self, info: dict) -> np.ndarray | None:
        """The legal actions (num_envs, actions) of the env's `info` when masking (None otherwise); on rows
        with none, every action."""
        if not self.masked:
            return None
        if "action_mask" not in info:
            raise ValueError("mask_actions: the env gives no info['action_mask'] to mask actions with; "
                             "use mask_actions: false with this env")
        legal = np.asarray(info["action_mask"], bool).reshape(self.num_envs, -1)
        return legal | ~legal.any(axis=1, keepdims=True)

    def _sync(self, force: bool = False) -> None:
        if force or self.vector_steps % self.pull_every == 0:
            version, params = self.pull()
            if version != self.version:
                self.load_weights(params, version)

    def load_weights(self, params: dict, version: int, calibration: np.ndarray | None = None) -> None:
        """Act with these weights (a state dict of the learner's network) from now on.

        An int8 copy is calibrated on `calibration` (observations), by default the current ones.
        """
        self.net.load_state_dict(params)
        self.calibration = np.array(self.obs if calibration is None else calibration)
        self.acting = acting_network(self.net, self.precision, torch.from_numpy(self.calibration))
        self.version = version

    def behavior(self) -> torch.Tensor:
        """The current behavior of every env slot, (num_envs, k)."""
        return torch.as_tensor(np.stack([c.value for c in self.choices]), dtype=torch.float32)

    def run(self, vector_steps: int) -> tuple[int, list[Episode]]:
        """Step every env `vector_steps` times; returns (real transitions made, episodes finished)."""
        with torch.inference_mode():
            return self._run(vector_steps)

    def _run(self, vector_steps: int) -> tuple[int, list[Episode]]:
        # One iteration is one vector step (GDI Algorithm 2's ACTOR for every env slot at once): the
        # acting network's (A, V) and the behavior policy at each slot's behavior give mu, an action
        # is sampled from it, and the row (observation, action, mu, recurrent state before the step)
        # is written. A slot whose buffer is full, or whose episode ended on the previous step, emits
        # its sequence, the row just written being its bootstrap row; an ended episode also reports
        # its return to the meta-controller and starts the next one from a zero state. With
        # NEXT_STEP autoreset the env spends the step after an episode's end on the reset (the
        # action is ignored), so `live` keeps that step's reward out of the books.
        envs = np.arange(self.num_envs)
        transitions, finished = 0, []
        behavior = self.behavior()
        for _ in range(vector_steps):
            (adv, value), next_state = self.acting.step(torch.from_numpy(self.obs), self.state)
            if self.masked:
                mu = self.policy(adv, value, behavior, legal=torch.from_numpy(self.legal)).exp_()
            else:
                mu = self.policy(adv, value, behavior).exp_()
            actions = torch.multinomial(mu, 1, generator=self.generator).squeeze(1).numpy()
            full = self.writer.write(envs, self.obs, actions, mu.numpy(), self.state.numpy(), self.legal)
            resetting = self.ended
            if full.size or resetting.any():
                for i in np.union1d(full, np.flatnonzero(resetting)):
                    self.sink(self.writer.emit(i, self.choices[i].value, self.choices[i].arm))
                    if resetting[i]:
                        finished.append(self._end_episode(i))
                        next_state[i] = 0.0
                        behavior = self.behavior()
                    else:
                        self.writer.roll(i)
            self.state = next_state
            self.actions.append(actions)
            self.obs, reward, terminated, truncated, info = self.envs.step(actions)
            self.legal = self._legal(info)
            live = ~resetting
            self.writer.set_outcome(envs[live], reward[live], terminated[live])
            self.returns[live] += reward[live]
            self.lengths[live] += 1
            self.ended = live & (terminated | truncated)
            transitions += int(live.sum())
            self.vector_steps += 1
            self._sync()
        return transitions, finished

    def _end_episode(self, i: int) -> Episode:
        episode = Episode(int(i), self.choices[i], float(self.returns[i]), int(self.lengths[i]))
        self.controller(i).update(episode.choice, episode.episode_return)
        self.choices[i] = self.controller(i).sample()
        self.returns[i], self.lengths[i] = 0.0, 0
        self.writer.restart(i)
        return episode

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state_dict(self) -> dict[str, np.ndarray]:
        """Arrays only (for an .npz): the envs' seed and actions, the episodes in progress, the recurrent
        states, the sequences being written and the int8 calibration; the weights are the caller's."""
        writer = self.writer
        return {
            "seed": np.array(self.seed, np.int64), "actions": self.actions.array(),
            "counters": np.array([self.vector_steps, self.version], np.int64),
            "state": self.state.numpy(), "returns": self.returns, "lengths": self.lengths, "ended": self.ended,
            "behavior": np.stack([c.value for c in self.choices]), "arm": np.array([c.arm for c in self.choices]),
            "calibration": self.calibration,
            **{f"writer.{name}": getattr(writer, name) for name in writer.state_names},
        }

    def load_state_dict(self, state: dict[str, np.ndarray], params: dict) -> None:
        """Continue where `state_dict` was taken, acting with `params` (the weights it acted with then).

        The envs are reset with the saved seed and stepped through the saved actions again.
        """
        self.seed = int(state["seed"])
        self.obs, info = self.envs.reset(seed=self.seed)
        self.actions.clear()
        for actions in state["actions"].astype(np.int64):  # as the actor sampled them
            self.actions.append(actions)
            self.obs, *_, info = self.envs.step(actions)
        self.legal = self._legal(info)
        self.vector_steps, version = (int(x) for x in state["counters"])
        self.state = torch.from_numpy(np.array(state["state"]))
        self.returns, self.lengths = np.array(state["returns"]), np.array(state["lengths"])
        self.ended = np.array(state["ended"])
        self.choices = [Choice(np.array(value), int(arm)) for value, arm in zip(state["behavior"], state["arm"])]
        for name in self.writer.state_names:
            getattr(self.writer, name)[...] = state[f"writer.{name}"]
        self.load_weights(params, version, state["calibration"])


class ActionLog:
    """The rows of actions sent to a vector env, in a growing array of the smallest integer type that holds them."""

    def __init__(self, num_envs: int, actions: int):
        self.dtype = np.min_scalar_type(max(actions - 1, 0))
        self.rows = np.zeros((0, num_envs), self.dtype)
        self.count = 0

    def clear(self) -> None:
        self.count = 0

    def append(self, actions: np.ndarray) -> None:
        if self.count == len(self.rows):
            grown = np.zeros((max(64, 2 * len(self.rows)), self.rows.shape[1]), self.dtype)
            grown[:self.count] = self.rows[:self.count]
            self.rows = grown
        self.rows[self.count] = actions
        self.count += 1

    def array(self) -> np.ndarray:
        return self.rows[:self.count].copy()
