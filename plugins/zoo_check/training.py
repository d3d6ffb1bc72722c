"""The checks that train: an agent trains a few hundred steps three times (twice straight, once interrupted
half-way and resumed); a meta-controller keeps the contract of :mod:`zoo.behavior` on its own and
drives GDI-I3 and LBC through a tiny run, interrupted and resumed."""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from zoo import AgentEntry, BehaviorSpace, BestRegion, Choice, Coordinate, Entry, MetaControllerEntry, Registry

from .results import Result, example, run

#: steps of one agent run, its checkpoint interval and evaluation episodes
AGENT_STEPS, AGENT_CHECKPOINT, AGENT_EVAL = 300, 100, 2
#: the envs an agent is tried on after its own plugin's: discrete actions, then continuous ones
FALLBACK_ENVS = ({"type": "gym", "id": "CartPole-v1"}, {"type": "gym", "id": "Pendulum-v1"})
#: the behavior space meta-controllers are checked in on their own
SPACE = BehaviorSpace((Coordinate("beta", 0.0, 4.0, 1.0), Coordinate("eps", 0.0, 1.0, 0.25)), default=(1.0, 0.5))
#: the agents a meta-controller drives in its check (with their declared examples)
SUBSTRATE_AGENTS = ("gdi:gdi-i3", "lbc:lbc")


# -- training runs ----------------------------------------------------------------------------------------

class Runs:
    """Tiny runs of one spec (a mapping, written as YAML) in a scratch folder."""

    def __init__(self, root: Path, registry: Registry, spec: Mapping[str, Any], eval_episodes: int = 0):
        self.root, self.registry, self.spec = root, registry, spec
        self.source = root / f"{len(list(root.glob('*.yaml')))}.yaml"
        self.source.write_text(yaml.safe_dump({
            "name": "check", **spec, "budget": {"steps": AGENT_STEPS, "checkpoint_every": AGENT_CHECKPOINT,
                                                "eval_episodes": eval_episodes},
            "seed": 11, "logging": {"tensorboard": False, "progress": False}}, sort_keys=False))

    def prepare(self, name: str) -> Any:
        from zoo import prepare_run

        return prepare_run(self.source, self.registry, self.root / "runs", self.root / "runs" / f"{self.source.stem}-{name}")

    def evaluates(self, folder: Any) -> bool:
        """Whether the agent of the prepared run `folder` has an evaluation mode (overrides ``Agent.evaluate``)."""
        from zoo import Agent, build_trial, load_run_spec

        built = build_trial(load_run_spec(folder, self.registry), self.registry, seed=0, trial=0,
                            directory=folder.path / "evaluates")
        try:
            return type(built.agent).evaluate is not Agent.evaluate
        finally:
            built.agent.close()

    def straight(self, name: str) -> Any:
        """A run trained to its end in one go."""
        from zoo import execute_run

        folder = self.prepare(name)
        assert execute_run(folder, self.registry, progress=False) == "finished", "the run did not finish"
        return folder

    def resumed(self, name: str) -> Any:
        """A run stopped (as by Ctrl-C, which checkpoints) after the chunk of training that passes half its budget,
        so that episodes have ended and behaviors have been chosen before it, then resumed from that checkpoint."""
        from zoo import Interrupted, execute_run, run_trials

        folder = self.prepare(name)
        done = [0]
        try:
            run_trials(folder.path, [0], registry=self.registry, should_stop=lambda: done[0] >= AGENT_STEPS // 2,
                       report=lambda trial, progress, running: done.__setitem__(0, progress))
        except Interrupted:
            pass
        else:
            raise AssertionError(f"the run trained its {AGENT_STEPS} steps in one go: no checkpoint to resume from")
        assert execute_run(folder, self.registry, progress=False) == "finished", "the resumed run did not finish"
        return folder


@contextlib.contextmanager
def _every_step_checked() -> Iterator[None]:
    """Envs the agents train on check every observation (``ZOO_CHECK_EVERY=1``, `zoo.culprits`) while this lasts."""
    before = os.environ.get("ZOO_CHECK_EVERY")
    os.environ["ZOO_CHECK_EVERY"] = "1"
    try:
        yield
    finally:
        if before is None:
            del os.environ["ZOO_CHECK_EVERY"]
        else:
            os.environ["ZOO_CHECK_EVERY"] = before


@contextlib.contextmanager
def _scratch() -> Iterator[Path]:
    with tempfile.TemporaryDirectory(prefix="zoo-check-") as scratch, _every_step_checked():
        yield Path(scratch)


def _rows(folder: Any) -> list[str]:
    return (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()


def _claims_exact_resume(folder: Any) -> bool:
    return bool(json.loads(folder.manifest_path.read_text()).get("exact_resume"))


def _same_numbers(reference: Any, other: Any, what: str) -> str:
    expected, got = _rows(reference), _rows(other)
    differ = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), None)
    assert differ is None and len(expected) == len(got), (
        f"{what} wrote other metrics than the first, from row {differ if differ is not None else min(len(expected), len(got))}")
    return f"{len(expected)} metrics rows"


def _evaluated(folder: Any) -> str:
    result = json.loads((folder.trial_dir(0) / "result.json").read_text())
    returns = result.get("eval_returns")
    assert isinstance(returns, list) and len(returns) == AGENT_EVAL, f"result.json holds eval_returns {returns!r}"
    assert all(math.isfinite(r) for r in returns), f"an evaluation return is not finite: {returns}"
    return f"{AGENT_EVAL} episodes"


def _described(env: Mapping[str, Any]) -> str:
    return " ".join(str(value) for value in env.values() if not isinstance(value, dict | list))


# -- agents ------------------------------------------------------------------------------------------------

def _env_blocks(entry: AgentEntry, own_envs: list[Entry]) -> list[dict[str, Any]]:
    """The env blocks to try `entry` on: its declared example env alone, else its plugin's envs (with their
    examples) and the fallbacks."""
    if entry.example_env is not None:
        return [dict(entry.example_env)]
    own = [{"type": f"{env.plugin}:{env.name}", **env.example} for env in own_envs if env.example is not None]
    return own + [dict(env) for env in FALLBACK_ENVS]


def check_agent_entry(subject: str, entry: AgentEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    block, skipped = example(subject, entry)
    if skipped is not None:
        yield skipped
        return
    env_type = (entry.example_env or {}).get("type")
    if env_type is not None and env_type not in registry.entries["env"]:
        yield Result("SKIP", subject, "contract", f"the env of its example_env, {env_type}, is not installed "
                                                  "(its plugin is not loaded)")
        return
    agent = {"type": f"{entry.plugin}:{entry.name}", **block}
    with _scratch() as root:
        probe, problems = None, []
        for env in _env_blocks(entry, own_envs):
            candidate = Runs(root, registry, {"env": env, "agent": agent})
            try:
                folder = candidate.prepare("probe")
                evaluates = candidate.evaluates(folder)
            except Exception as exc:
                problems.append(f"{_described(env)}: {' '.join(str(exc).split())[:200]}")
                continue
            probe = candidate
            break
        if probe is None:
            tried = "its example_env" if entry.example_env is not None else "its plugin's envs, CartPole-v1 or Pendulum-v1"
            yield Result("FAIL", subject, "builds", f"on none of {tried}: " + "; ".join(problems))
            return
        runs = Runs(root, registry, probe.spec, eval_episodes=AGENT_EVAL if evaluates else 0)

        straight = []
        yield run(subject, f"trains {AGENT_STEPS} steps on {_described(env)}", lambda: straight.append(runs.straight("a")))
        if not straight:
            return
        if evaluates:
            yield run(subject, "evaluation", lambda: _evaluated(straight[0]))
        else:
            yield Result("SKIP", subject, "evaluation", "the agent has no evaluation mode: it keeps Agent.evaluate")
        yield run(subject, "same seed, same numbers", lambda: _same_numbers(straight[0], runs.straight("b"), "a second run"))
        cut = []
        yield run(subject, "save/load round trip (stopped half-way, resumed)", lambda: cut.append(runs.resumed("c")))
        if not cut:
            return
        if _claims_exact_resume(cut[0]):
            yield run(subject, "exact resume", lambda: _same_numbers(straight[0], cut[0], "the resumed run"))
        else:
            yield Result("SKIP", subject, "exact resume", "the agent does not claim exact_resume")


# -- meta-controllers --------------------------------------------------------------------------------------

def check_meta_controller_entry(subject: str, entry: MetaControllerEntry, registry: Registry,
                                own_envs: list[Entry]) -> Iterator[Result]:
    from zoo import MetaController

    block, skipped = example(subject, entry)
    if skipped is not None:
        yield skipped
        return

    def build(seed: int) -> Any:
        return entry.factory(entry.params.model_validate(block), SPACE, np.random.default_rng(seed))

    def samples() -> str:
        control = build(0)
        assert isinstance(control, MetaController), "it lacks sample, update, state_dict or load_state_dict"
        for _ in range(60):
            choice = control.sample()
            assert isinstance(choice, Choice), f"sample() returned {type(choice).__name__}, not a zoo.Choice"
            assert SPACE.contains(choice.value), f"sample() returned {choice.value}, outside the space"
            control.update(choice, float(choice.value[0] - choice.value[1]))
        return "60 episodes"

    def restores() -> str:
        trained = build(0)
        for _ in range(40):
            choice = trained.sample()
            trained.update(choice, float(choice.value[0]))
        restored = build(1)
        restored.load_state_dict(trained.state_dict())
        future = [trained.sample().value.tolist() for _ in range(10)]
        assert [restored.sample().value.tolist() for _ in range(10)] == future, (
            "after load_state_dict(state_dict()) its next choices differ: the state misses something (its rng?)")
        return "10 choices"

    yield run(subject, "samples the space, learns from returns", samples)
    yield run(subject, "state_dict restores its future choices", restores)
    if isinstance(build(0), BestRegion):
        def best() -> str:
            control, twin = build(0), build(0)
            point = control.best(np.random.default_rng(3))
            assert SPACE.contains(point.value), f"best() returned {point.value}, outside the space"
            assert [control.sample().value.tolist() for _ in range(5)] == [twin.sample().value.tolist() for _ in range(5)], (
                "best() changed its state")
            return ""

        yield run(subject, "best() is in the space and changes nothing", best)
    for name in SUBSTRATE_AGENTS:
        yield _drives(subject, entry, block, name, registry)


def _drives(subject: str, entry: MetaControllerEntry, block: dict[str, Any], agent_name: str,
            registry: Registry) -> Result:
    """A tiny run of the agent `agent_name` (with its declared example) driven by the meta-controller, once
    straight and once interrupted and resumed: the two write the same metrics when the agent claims exact resume."""
    check = f"drives {agent_name.partition(':')[2]}"
    agent = registry.entries["agent"].get(agent_name)
    if agent is None:
        return Result("SKIP", subject, check, f"the agent {agent_name} is not installed (its plugin is not loaded)")
    env = dict(agent.example_env) if agent.example_env is not None else dict(FALLBACK_ENVS[0])
    spec = {"env": env, "agent": {"type": agent_name, **(agent.example or {})},
            "meta_controller": {"type": f"{entry.plugin}:{entry.name}", **block}}

    def body() -> str:
        with _scratch() as root:
            runs = Runs(root, registry, spec)
            straight, cut = runs.straight("a"), runs.resumed("b")
            if not _claims_exact_resume(cut):
                return f"{AGENT_STEPS} steps on {_described(env)}, resumed ({agent_name} does not claim exact resume)"
            return (f"{AGENT_STEPS} steps on {_described(env)}, resumed exactly: "
                    + _same_numbers(straight, cut, "the resumed run"))

    return run(subject, check, body)
