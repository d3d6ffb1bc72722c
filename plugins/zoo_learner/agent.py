"""A zoo Agent on the substrate: budgets, metrics, evaluation and checkpoints around a LocalSystem."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

from zoo import Agent, BehaviorSpace, BestRegion, MetaController, TrialContext, ZooError, get_registry

from .builder import LocalSystem, actor_seed
from .contracts import AgentBuilder
from .local_actors import load_local_actors, save_local_actors
from .params import SubstrateParams
from .state import generator_state, read_json, set_generator_state, write_json

#: (behavior space, numpy Generator) -> meta-controller
ControllerFactory = Callable[[BehaviorSpace, np.random.Generator], MetaController]

#: the backend capability of trials that run in a Ray worker and so may start Ray actors (the ray backend's)
RAY_ACTORS = "ray-actors"


def default_controller(name: str, **params) -> ControllerFactory:
    """A registered meta-controller by name with the given params, for agents whose spec has no meta_controller block."""
    def make(space: BehaviorSpace, rng: np.random.Generator) -> MetaController:
        entry = get_registry().get("meta_controller", name)
        return entry.factory(entry.params(**params), space, rng)

    return make


def require_best_region(controller: MetaController) -> None:
    """A ZooError naming the controller unless it has a best region (``evaluation: best_region`` needs one)."""
    if isinstance(controller, BestRegion):
        return

    entries = get_registry().entries["meta_controller"].values()
    name = next((e.name for e in entries if e.factory is type(controller)), type(controller).__name__)
    valid = sorted(e.name for e in entries if isinstance(e.factory, type) and hasattr(e.factory, "best"))
    raise ZooError(f"evaluation: best_region needs a meta-controller with a best region, and '{name}' has none; "
                   f"use evaluation: mechanism, or one of these meta-controllers: {', '.join(valid)}")


def evaluation_mode(asked: str, controller: MetaController) -> str:
    """The evaluation mode a trial uses: `asked`, with auto resolved to best_region when the meta-controller
    has a best region and to mechanism otherwise; best_region asked of a controller without one is refused."""
    if asked == "auto":
        return "best_region" if isinstance(controller, BestRegion) else "mechanism"
    if asked == "best_region":
        require_best_region(controller)
    return asked


def make_controllers(make: ControllerFactory, space: BehaviorSpace, params: SubstrateParams,
                     seed: int) -> list[MetaController]:
    """Every actor's meta-controllers in actor order (per_env: one per env slot; shared: one per actor),
    each with its own random stream spawned from `seed`."""
    count = params.actors * (params.num_envs if params.controller_scope == "per_env" else 1)
    return [make(space, np.random.default_rng(s)) for s in np.random.SeedSequence([seed, 1]).spawn(count)]


def per_actor(controllers: list, actors: int) -> list[list]:
    """`controllers` in actor order cut into one list per actor."""
    size = len(controllers) // actors
    return [controllers[k * size:(k + 1) * size] for k in range(actors)]


def legal_actions(info: dict) -> torch.Tensor:
    """The legal actions (1, A) of one env's `info["action_mask"]` (every action if it marks none)."""
    if "action_mask" not in info:
        raise ZooError("mask_actions: the env gives no info['action_mask'] to mask actions with; "
                       "use mask_actions: false with this env")
    legal = torch.as_tensor(np.asarray(info["action_mask"], bool)).reshape(1, -1)
    return legal | ~legal.any()


def vector_env(context: TrialContext, num_envs: int, seed: int):
    """The env's own vector form when it has one, else a SyncVectorEnv of single envs (both NEXT_STEP autoreset)."""
    if context.make_vector_env is not None:
        return context.make_vector_env(num_envs, seed)
    import gymnasium

    return gymnasium.vector.SyncVectorEnv([lambda i=i: context.make_env(seed + i) for i in range(num_envs)])


class SubstrateAgent(Agent):
    """Trains an AgentBuilder's agent with vectorized actors in one process.

    Checkpoints hold the learner, actor and server weights and versions, the optimizer, the replay's
    sequences and their uses left, every meta-controller (random state included), the random states
    of action sampling and replay sampling, the counters, and the actor's state: its recurrent
    states, behaviors, returns and sequences in progress, and the actions it sent to the envs. On an
    env that is deterministic given its seed a resumed trial therefore ends exactly as an
    uninterrupted one; loading steps a new vector env through the trial's actions again (no
    network is evaluated), which takes time in proportion to the steps taken.
    """

    exact_resume = True

    def __init__(self, builder: AgentBuilder, params: SubstrateParams, context: TrialContext,
                 controller: ControllerFactory):
        self.builder, self.params, self.context = builder, params, context
        self.space = builder.behavior_space()
        make = context.meta_controller or controller
        self.controllers = make_controllers(make, self.space, params, context.seed)
        self.evaluation = evaluation_mode(params.evaluation, self.controllers[0])
        seeds = [actor_seed(context.seed, k, params.num_envs) for k in range(params.actors)]
        self.envs = [vector_env(context, params.num_envs, seed) for seed in seeds]
        self._controller_factory, self._eval_seed = make, context.seed
        try:
            self.system = LocalSystem(builder, params, self.envs, per_actor(self.controllers, params.actors),
                                      seed=context.seed, budget=context.budget)
            for actor, seed in zip(self.system.actors, seeds):
                actor.reset(seed=seed)
        except ValueError as exc:
            self.close()
            raise ZooError(str(exc)) from None

    def train_step(self) -> None:
        """One round: the actors collect, then the learner trains on the replay."""
        transitions, finished = self.system.collect()
        for episode in finished:
            self.context.logger.log(self._steps + transitions, episode_return=episode.episode_return,
                                    episode_length=episode.length,
                                    **{f"behavior/{n}": float(v) for n, v in zip(self.space.names, episode.choice.value)})
        self._steps += transitions
        self.episodes += len(finished)
        metrics = self.system.train(self._steps)
        if metrics:
            means = {f"learner/{k}": float(np.mean([m[k] for m in metrics])) for k in metrics[0]}
            self.context.logger.log(self._steps, updates=self.system.learner.updates, **means)

    def evaluate(self, episodes: int, seed: int) -> list[float]:
        """Returns of `episodes` episodes on one env with the learner's weights and stochastic behavior
        (on the legal actions alone with ``mask_actions``); nothing is learned from them.

        Behaviors per ``self.evaluation`` (``params.evaluation`` with auto resolved): mechanism: a fresh meta-controller of the same kind, sampled
        and updated episode by episode; best_region: episode k draws inside the best region of trained
        controller k % len(controllers), leaving the controllers untouched.
        """
        env = self.context.make_env(seed)
        net = self.system.learner.net
        policy = self.builder.behavior_policy()
        controller = None
        if self.evaluation == "best_region":
            rng = np.random.default_rng(seed)
            best = [self.controllers[k % len(self.controllers)].best(rng) for k in range(episodes)]
        else:
            controller = self._controller_factory(self.space, np.random.default_rng(seed))
        generator = torch.Generator().manual_seed(seed)
        returns = []
        try:
            for episode in range(episodes):
                obs, info = env.reset(seed=seed + episode)
                choice = best[episode] if controller is None else controller.sample()
                state, total, done = net.initial_state(1), 0.0, False
                behavior = torch.as_tensor(choice.value, dtype=torch.float32).unsqueeze(0)
                while not done:
                    with torch.inference_mode():
                        (adv, value), state = net.step(torch.as_tensor(np.asarray(obs)).unsqueeze(0), state)
                        if self.params.mask_actions:
                            mu = policy(adv, value, behavior, legal=legal_actions(info)).exp()
                        else:
                            mu = policy(adv, value, behavior).exp()
                        action = int(torch.multinomial(mu, 1, generator=generator))
                    obs, reward, terminated, truncated, info = env.step(action)
                    total += float(reward)
                    done = terminated or truncated
                if controller is not None:
                    controller.update(choice, total)
                returns.append(total)
        finally:
            env.close()
        return returns

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def save(self, directory: Path) -> None:
        system = self.system
        torch.save(system.learner.state_dict(), directory / "learner.pt")
        torch.save({"actor": system.actor.net.state_dict(), "server": system.server.params,
                    "server_version": system.server.version}, directory / "weights.pt")
        np.savez(directory / "replay.npz", **system.replay.state_dict())
        write_json(directory / "controllers.json", [c.state_dict() for c in self.controllers])
        np.savez(directory / "actor.npz", **system.actor.state_dict())
        write_json(directory / "random.json", {"actions": generator_state(system.generator),
                                               "replay": system.rng.bit_generator.state})
        self.save_state(directory, "counters.json")
        save_local_actors(system.actors[1:], directory)

    def load(self, directory: Path) -> None:
        system = self.system
        system.learner.load_state_dict(torch.load(directory / "learner.pt", weights_only=True))
        weights = torch.load(directory / "weights.pt", weights_only=True)
        system.server.params, system.server.version = weights["server"], int(weights["server_version"])
        with np.load(directory / "replay.npz", allow_pickle=False) as data:
            system.replay.load_state_dict({k: data[k] for k in data.files})
        for controller, state in zip(self.controllers, read_json(directory / "controllers.json")):
            controller.load_state_dict(state)
        randoms = read_json(directory / "random.json")
        set_generator_state(system.generator, randoms["actions"])
        system.rng.bit_generator.state = randoms["replay"]
        self.load_state(directory, "counters.json")
        with np.load(directory / "actor.npz", allow_pickle=False) as data:
            system.actor.load_state_dict({k: data[k] for k in data.files}, weights["actor"])
        load_local_actors(system.actors[1:], directory)

    def close(self) -> None:
        for envs in self.envs:
            envs.close()


def substrate_agent(builder: AgentBuilder, params: SubstrateParams, context: TrialContext,
                    controller: ControllerFactory) -> SubstrateAgent:
    """The agent for this trial's backend: with ``actors`` of 2 or more on a backend whose trials may start Ray
    actors (the capability RAY_ACTORS), Ray actor processes feed a learner in this process; otherwise every
    actor steps in this process."""
    if params.actors > 1 and RAY_ACTORS in context.backend_capabilities:
        from .distributed import RaySubstrateAgent

        return RaySubstrateAgent(builder, params, context, controller)
    return SubstrateAgent(builder, params, context, controller)
