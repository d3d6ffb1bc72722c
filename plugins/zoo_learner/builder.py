"""Wiring actors, replay and learner (Acme's builder), and the single-process system that runs them.

An agent on the substrate supplies a :class:`zoo_learner.contracts.AgentBuilder`: its behavior space, network,
behavior policy and loss. :class:`SubstrateParams` holds the machinery's own settings.
`make_replay`, `make_learner` and `make_actor` build one component each and take the others only
through callables (``sink``, ``pull``), so that a distributed backend can place them in
different processes; :class:`LocalSystem` emulates the asynchronous architecture synchronously
(each actor steps in turn, then the learner trains until every sequence has been used `reuse`
times), which keeps the actor lag exact and the run deterministic for a seed. The Ray launcher
(:mod:`zoo_learner.distributed`) places the same components in actor processes.
"""

from __future__ import annotations

import inspect
from dataclasses import replace

import numpy as np
import torch

from zoo import MetaController

from .actor import VectorActor
from .contracts import AgentBuilder
from .learner import Learner, ParameterServer
from .params import SubstrateParams
from .replay import FIELDS, MASKED_FIELDS, SequenceReplay


def planned_updates(params: SubstrateParams, budget, steps: int = 0, sequences: int = 0) -> int:
    """Updates the schedules span: given in the params, else estimated for a step budget.

    Before any sequence exists the estimate is steps * reuse / (batch * length). Episodes end in
    padded sequences, so a run makes more sequences than that; once `sequences` have been made in
    `steps` steps, the estimate scales the observed sequences per step to the whole budget.
    """
    if params.planned_updates is not None:
        return params.planned_updates
    if budget is None or budget.unit != "steps":
        return 10**9
    if steps and sequences:
        return max(1, round(budget.amount * sequences * params.reuse / (steps * params.batch)))
    return max(1, budget.amount * params.reuse // (params.batch * params.length))


def make_replay(params: SubstrateParams) -> SequenceReplay:
    return SequenceReplay(reuse=params.reuse, capacity=params.capacity,
                          fields=MASKED_FIELDS if params.mask_actions else FIELDS)


def make_learner(builder: AgentBuilder, params: SubstrateParams, net: torch.nn.Module, server: ParameterServer,
                 updates: int) -> Learner:
    return Learner(net, builder.make_loss(), params.optimizer, planned_updates=updates, server=server,
                   push_every=params.push_every)


def make_actor(builder: AgentBuilder, params: SubstrateParams, envs, net: torch.nn.Module,
               controllers: list[MetaController], sink, pull, generator: torch.Generator) -> VectorActor:
    mode = envs.metadata.get("autoreset_mode")
    if mode is not None and getattr(mode, "value", mode) != "NextStep":
        raise ValueError(f"the actor needs a vector env with NEXT_STEP autoreset; this one has {mode}")
    policy = builder.behavior_policy()
    if params.mask_actions and not accepts_legal(policy):
        raise ValueError("mask_actions: this agent's behavior policy takes no legal-action mask (a `legal` "
                         "keyword argument); use mask_actions: false")
    return VectorActor(envs, net, policy, controllers, sink, burn_in=params.burn_in,
                       length=params.length, pull=pull, pull_every=params.pull_every, generator=generator,
                       precision=params.actor_precision, masked=params.mask_actions)


def accepts_legal(policy) -> bool:
    """Whether a behavior policy can be called with a ``legal`` keyword argument."""
    try:
        inspect.signature(policy).bind(None, None, None, legal=None)
    except TypeError:
        return False
    return True


def actor_seed(seed: int, index: int, num_envs: int) -> int:
    """The seed of actor `index`'s vector env: its envs take seeds from there on, after those of the actors before it."""
    return seed + index * num_envs


def actor_generator(seed: int, index: int) -> torch.Generator:
    """The action-sampling generator of actor `index` (actor 0: seeded with `seed` itself, as with one actor)."""
    if index == 0:
        return torch.Generator().manual_seed(seed)
    return torch.Generator().manual_seed(int(np.random.SeedSequence([seed, 2, index]).generate_state(1)[0]))


class LocalSystem:
    """Actors, replay and learner in this process, stepped in turn.

    `envs` holds one vector env per actor and `controllers` one list of meta-controllers per actor;
    ``actor`` is the first of ``actors``.
    """

    def __init__(self, builder: AgentBuilder, params: SubstrateParams, envs: list,
                 controllers: list[list[MetaController]], *, seed: int, budget=None):
        self.params, self.budget = params, budget
        obs_shape = tuple(envs[0].single_observation_space.shape)
        actions = int(envs[0].single_action_space.n)
        torch.manual_seed(seed)
        learner_net = builder.make_network(obs_shape, actions)
        actor_nets = [builder.make_network(obs_shape, actions) for _ in envs]
        self.server = ParameterServer(learner_net.state_dict())
        self.replay = make_replay(params)
        self.learner = make_learner(builder, params, learner_net, self.server, planned_updates(params, budget))
        self.rng = np.random.default_rng(seed)
        self.actors = [make_actor(builder, params, env, net, group, self.replay.add, self.server.pull,
                                  actor_generator(seed, k))
                       for k, (env, net, group) in enumerate(zip(envs, actor_nets, controllers))]
        self.actor = self.actors[0]
        self.generator = self.actor.generator

    def collect(self) -> tuple[int, list]:
        """One round of acting: every env of every actor steps `length` times (episodes numbered across actors)."""
        transitions, finished = 0, []
        for k, actor in enumerate(self.actors):
            made, ended = actor.run(self.params.length)
            transitions += made
            finished += [replace(episode, env=episode.env + k * actor.num_envs) for episode in ended]
        return transitions, finished

    def train(self, steps: int) -> list[dict[str, float]]:
        """Learner updates until fewer than a batch of sequences have uses left (`steps`: transitions so far)."""
        return train_on_replay(self, steps)


def train_on_replay(system, steps: int) -> list[dict[str, float]]:
    """Learner updates of `system` (local or Ray) until fewer than a batch of its sequences have uses left.

    `steps` is the transitions made so far, from which the learner's schedules plan the updates to come.
    """
    system.learner.planned = planned_updates(system.params, system.budget, steps, system.replay.added)
    metrics = []
    while system.replay.ready(system.params.batch):
        metrics.append(system.learner.update(system.replay.sample(system.params.batch, system.rng)))
    return metrics
