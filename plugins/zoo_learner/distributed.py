"""The substrate's second launcher: each actor a Ray actor process, the learner in the trial's process.

The components are the builder's (`make_actor`, `make_learner`, `make_replay`); only their placement
changes. Each :class:`SubstrateActor` owns a vector env, its meta-controllers and a copy of the
network. The learner puts each pushed state dict in Ray's object store once (``ray.put``) and hands
the newest reference, with its version number, to every `run` call it sends an actor; the actor
fetches those weights at its next pull (every ``pull_every`` vector steps) when they are new to it.
So an actor acts with weights some updates old, and V-trace and Retrace correct that lag with the
behavior probabilities stored in each sequence. An actor's work arrives as the result of its `run`
call (sequences, finished episodes, the version it acted with). Each actor has ``CALLS_AHEAD``
calls queued, so that while the learner trains every actor steps on, and a result is waiting when
the learner asks for the next one; the learner adds its sequences to the replay and queues that
actor's next call at once. A crashed actor process is restarted by Ray (``max_restarts``, fresh
envs and meta-controllers, first weights) and the run goes on without the calls it had queued;
once an actor has failed more often than that, the run stops with an error naming it.

Ray is imported only when a run asks for it. Runs on Ray are not deterministic (the lag depends on
timing), so their checkpoints resume but not exactly.
"""

from __future__ import annotations

import copyreg
import os
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import torch

from zoo import TrialContext, ZooError, tagged_model

from .agent import ControllerFactory, SubstrateAgent, evaluation_mode, make_controllers, per_actor, vector_env
from .builder import (
    AgentBuilder,
    actor_generator,
    actor_seed,
    make_actor,
    make_learner,
    make_replay,
    planned_updates,
    train_on_replay,
)
from .params import SubstrateParams
from .state import generator_state, read_json, set_generator_state, write_json

#: times Ray restarts a crashed actor process before the run stops
MAX_RESTARTS = 3
#: seconds the actors may take to start (placement on CPUs included) before the run stops
START_TIMEOUT = 120.0
#: `run` calls queued on each actor: one to hand the learner while the next is being stepped
CALLS_AHEAD = 2


def connect(backend: Any):
    """The ray module, connected: to ``backend.address`` (None: a new local Ray) unless this process already is."""
    try:
        import ray
    except ImportError:
        raise ZooError("actors on the ray backend need Ray: pip install 'zoo-rl[ray]'") from None
    if not ray.is_initialized():
        address = getattr(backend, "address", None)
        try:
            ray.init(address=address, log_to_driver=False, include_dashboard=False)
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise ZooError(f"backend.address: cannot reach a Ray cluster at {address!r} ({exc}); give 'auto', "
                           "ray://HOST:PORT, or no address for a local Ray") from None
    return ray


def rebuild_block(kind: str, name: str, params: type, data: dict[str, Any]):
    """A spec block made again from its plain data, with the class the spec gives it (zoo.tagged_model)."""
    return tagged_model(kind, name, params).model_validate(data)


def _reduce_block(block) -> tuple:
    kind, name = type(block).__name__.rpartition("[")[2].rstrip("]").split(":", 1)  # "Params[kind:name]"
    return rebuild_block, (kind, name, type(block).__mro__[1], block.model_dump(mode="python"))


def make_shippable(*blocks) -> None:
    """Let these spec blocks pickle by their data: their classes are built at run time, which pickle cannot ship."""
    for block in blocks:
        if block is not None:
            copyreg.pickle(type(block), _reduce_block)


class ObjectStoreServer:
    """The learner's parameter server under Ray: a push puts the state dict in the object store once.

    `newest` is (version, [reference]): the list keeps Ray from resolving the reference when it is
    an argument of a call, so an actor fetches the weights only when it needs them.
    """

    def __init__(self, ray, params: dict[str, torch.Tensor]):
        self.ray, self.version = ray, -1
        self.push(params)

    def push(self, params: dict[str, torch.Tensor]) -> None:
        self.version += 1
        self.newest = self.version, [self.ray.put(params)]


class SubstrateActor:
    """Actor `index` of a trial in a Ray worker process: its vector env, meta-controllers and network copy.

    Its envs, meta-controllers and action generator are seeded as those of the same actor under the
    local launcher; it starts acting with `weights` ((version, [reference]), the learner's first).
    `run` returns what it made since the last call; `state`/`load_state` carry its meta-controllers,
    generator and step count through checkpoints.
    """

    def __init__(self, builder: AgentBuilder, params: SubstrateParams, context: TrialContext,
                 make: ControllerFactory, index: int, weights: tuple[int, list]):
        import ray

        torch.set_num_threads(max(1, context.torch_threads))
        self.ray, self.offered, self.index = ray, weights, index
        space = builder.behavior_space()
        self.controllers = per_actor(make_controllers(make, space, params, context.seed), params.actors)[index]
        self.seed = actor_seed(context.seed, index, params.num_envs)
        self.envs = vector_env(context, params.num_envs, self.seed)
        net = builder.make_network(tuple(self.envs.single_observation_space.shape),
                                   int(self.envs.single_action_space.n))
        self.sequences: list[dict[str, np.ndarray]] = []
        self.actor = make_actor(builder, params, self.envs, net, self.controllers, self.sequences.append, self._pull,
                                actor_generator(context.seed, index))
        self.actor.reset(seed=self.seed)

    def _pull(self) -> tuple[int, dict | None]:
        """The newest version handed to this actor, and its weights from the object store when they are new here."""
        version, (ref,) = self.offered
        return version, (self.ray.get(ref) if version != self.actor.version else None)

    def ready(self) -> int:
        """This actor's process id, once it is built."""
        return os.getpid()

    def run(self, vector_steps: int, weights: tuple[int, list] | None = None
            ) -> tuple[int, list, list[dict[str, np.ndarray]], int]:
        """Step every env `vector_steps` times: (transitions, finished episodes, sequences, weights version).

        `weights`: the learner's newest (version, [reference]), taken up at the actor's next pull.
        """
        if weights is not None and weights[0] > self.offered[0]:
            self.offered = weights
        transitions, finished = self.actor.run(vector_steps)
        offset = self.index * self.actor.num_envs
        sequences, self.sequences[:] = list(self.sequences), []
        return transitions, [replace(e, env=e.env + offset) for e in finished], sequences, self.actor.version

    def meta_controllers(self) -> list:
        return self.controllers

    def state(self) -> dict[str, Any]:
        return {"controllers": [c.state_dict() for c in self.controllers], "vector_steps": self.actor.vector_steps,
                "generator": generator_state(self.actor.generator)}

    def load_state(self, state: dict[str, Any], seed: int, weights: tuple[int, list]) -> None:
        """Restore `state` and start every env on a new episode seeded from `seed`, acting with `weights`."""
        self.offered = weights
        for controller, saved in zip(self.controllers, state["controllers"]):
            controller.load_state_dict(saved)
        set_generator_state(self.actor.generator, state["generator"])
        self.actor.vector_steps = int(state["vector_steps"])
        self.actor.reset(seed=actor_seed(seed, self.index, self.actor.num_envs))

class RaySystem:
    """The learner and replay in this process, `params.actors` :class:`SubstrateActor` processes feeding them.

    Same interface as :class:`~zoo_learner.builder.LocalSystem`: `collect` takes the oldest actor
    result (waiting only when none is ready) and queues that actor's next call; `train` runs the
    learner on the replay.
    """

    def __init__(self, builder: AgentBuilder, params: SubstrateParams, context: TrialContext,
                 make: ControllerFactory, *, seed: int, budget=None):
        self.ray = ray = connect(context.backend)
        self.params, self.budget, self.max_restarts = params, budget, MAX_RESTARTS
        probe = context.make_env(seed)
        obs_shape, actions = tuple(probe.observation_space.shape), int(probe.action_space.n)
        probe.close()
        torch.manual_seed(seed)
        net = builder.make_network(obs_shape, actions)
        self.server = ObjectStoreServer(ray, net.state_dict())
        self.first = self.server.newest  # held, so that a restarted actor finds its constructor's weights
        self.replay = make_replay(params)
        self.learner = make_learner(builder, params, net, self.server, planned_updates(params, budget))
        self.rng = np.random.default_rng(seed)
        remote = ray.remote(num_cpus=params.actor_cpus, max_restarts=self.max_restarts, max_task_retries=0)(SubstrateActor)
        meta = getattr(context.meta_controller, "args", [None])[0]  # the spec's meta_controller block, when given
        make_shippable(params, context.env_params, meta)
        shipped = replace(context, logger=None)
        self.actors = [remote.remote(builder, params, shipped, make, k, self.first) for k in range(params.actors)]
        self.pending: dict[Any, int] = {}
        self.failures = [0] * params.actors
        self.versions = [-1] * params.actors
        self._started()

    def _started(self) -> None:
        ready, _ = self.ray.wait([a.ready.remote() for a in self.actors], num_returns=len(self.actors),
                                 timeout=START_TIMEOUT)
        if len(ready) < len(self.actors):
            free = self.ray.available_resources().get("CPU", 0)
            self.close()
            raise ZooError(f"agent.actors: {len(self.actors) - len(ready)} of {len(self.actors)} Ray actors "
                           f"({self.params.actor_cpus:g} CPU each) did not start within {START_TIMEOUT:.0f} s; the "
                           f"cluster has {free:g} CPUs free: lower actors or actor_cpus, or add nodes")
        self.ray.get(ready)  # an actor that failed to build raises its error here

    def _queue(self) -> None:
        """Top every actor up to CALLS_AHEAD pending calls, each handing it the newest weights."""
        queued = [0] * len(self.actors)
        for k in self.pending.values():
            queued[k] += 1
        for k, actor in enumerate(self.actors):
            for _ in range(CALLS_AHEAD - queued[k]):
                self.pending[actor.run.remote(self.params.length, self.server.newest)] = k

    def _forget(self, k: int) -> None:
        """Drop actor `k`'s queued calls: its process died, and they with it."""
        self.pending = {ref: j for ref, j in self.pending.items() if j != k}

    def collect(self) -> tuple[int, list]:
        """The oldest result's `length` vector steps (0 and no episodes when its actor crashed and restarts)."""
        self._queue()
        (ready,), _ = self.ray.wait(list(self.pending), num_returns=1)
        k = self.pending[ready]
        ref = next(r for r, j in self.pending.items() if j == k)  # its oldest call: an actor runs them in order
        del self.pending[ref]
        try:
            transitions, finished, sequences, self.versions[k] = self.ray.get(ref)
        except self.ray.exceptions.ActorUnavailableError:  # restarting: ask again shortly
            self._forget(k)
            time.sleep(0.1)
            return 0, []
        except self.ray.exceptions.RayActorError as exc:
            self._forget(k)
            self.failures[k] += 1
            if self.failures[k] > self.max_restarts:
                raise ZooError(f"substrate actor {k} failed {self.failures[k]} times (Ray restarts it at most "
                               f"{self.max_restarts} times): {exc}") from None
            return 0, []
        self._queue()
        for sequence in sequences:
            self.replay.add(sequence)
        return transitions, finished

    def train(self, steps: int) -> list[dict[str, float]]:
        """Learner updates until fewer than a batch of sequences have uses left (`steps`: transitions so far)."""
        return train_on_replay(self, steps)

    def gather(self, method: str, *args_per_actor) -> list:
        """Call `method` on every actor (after its pending run) and return the results in actor order."""
        calls = [getattr(a, method).remote(*(args[k] for args in args_per_actor)) for k, a in enumerate(self.actors)]
        return self.ray.get(calls)

    def close(self) -> None:
        for actor in self.actors:
            self.ray.kill(actor)
        self.pending.clear()


class RaySubstrateAgent(SubstrateAgent):
    """A substrate agent whose actors are Ray actor processes (``actors`` of them); see the module docstring.

    Checkpoints hold the learner, the replay, the replay's random state, the counters and every actor's
    meta-controllers, action generator and step count (``controllers.json`` in the local launcher's
    layout). After a resume each actor pulls the learner's weights and starts new episodes.
    """

    def __init__(self, builder: AgentBuilder, params: SubstrateParams, context: TrialContext,
                 controller: ControllerFactory):
        self.builder, self.params, self.context = builder, params, context
        self.space = builder.behavior_space()
        make = context.meta_controller or controller
        self.evaluation = evaluation_mode(params.evaluation, make(self.space, np.random.default_rng(context.seed)))
        self._controller_factory, self._eval_seed = make, context.seed
        self.exact_resume = False
        self.system = RaySystem(builder, params, context, make, seed=context.seed, budget=context.budget)

    @property
    def controllers(self) -> list:
        """Every actor's meta-controllers, fetched from the actors, in actor order."""
        return [c for group in self.system.gather("meta_controllers") for c in group]

    def save(self, directory: Path) -> None:
        system = self.system
        torch.save(system.learner.state_dict(), directory / "learner.pt")
        np.savez(directory / "replay.npz", **system.replay.state_dict())
        states = system.gather("state")
        write_json(directory / "controllers.json", [c for state in states for c in state["controllers"]])
        write_json(directory / "actors.json", [{k: v for k, v in s.items() if k != "controllers"} for s in states])
        write_json(directory / "random.json", {"replay": system.rng.bit_generator.state})
        self.save_state(directory, "counters.json", weights_version=system.server.version)

    def load(self, directory: Path) -> None:
        system = self.system
        system.learner.load_state_dict(torch.load(directory / "learner.pt", weights_only=True))
        with np.load(directory / "replay.npz", allow_pickle=False) as data:
            system.replay.load_state_dict({k: data[k] for k in data.files})
        system.rng.bit_generator.state = read_json(directory / "random.json")["replay"]
        counters = self.load_state(directory, "counters.json")
        system.server.version = int(counters["weights_version"]) - 1
        system.server.push(system.learner.net.state_dict())
        controllers = per_actor(read_json(directory / "controllers.json"), self.params.actors)
        states = [{**s, "controllers": c} for s, c in zip(read_json(directory / "actors.json"), controllers)]
        count = len(states)
        system.gather("load_state", states, [self.context.seed + self._steps] * count, [system.server.newest] * count)

    def close(self) -> None:
        self.system.close()
