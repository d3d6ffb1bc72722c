"""The contract checks of ``zoo check``: what the zoo relies on from each kind of entry, with tiny budgets.

Envs go through gymnasium's ``check_env`` (its render check skipped: the zoo builds envs without a render
mode) and the zoo's own checks; agents train a few hundred steps three times (twice straight, once
interrupted at a checkpoint and resumed); meta-controllers keep the contract of :mod:`zoo.behavior`;
every rule file of a rule set parses; a reporter's envs are registered; a command answers ``--help``.
Each check is one :class:`Result`.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import tempfile
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from zoo import (
    AgentEntry,
    BehaviorSpace,
    BestRegion,
    Choice,
    Coordinate,
    Entry,
    EnvEntry,
    MetaControllerEntry,
    Registry,
    ReporterEntry,
    ZooError,
    in_space,
)

#: steps of one agent run, its checkpoint interval and evaluation episodes
AGENT_STEPS, AGENT_CHECKPOINT, AGENT_EVAL = 300, 100, 2
#: steps of the episodes an env check plays
ENV_STEPS = 200
#: the behavior space meta-controllers are checked in
SPACE = BehaviorSpace((Coordinate("beta", 0.0, 4.0, 1.0), Coordinate("eps", 0.0, 1.0, 0.25)), default=(1.0, 0.5))
#: the envs an agent is tried on after its own plugin's: discrete actions, then continuous ones
FALLBACK_ENVS = ({"type": "gym", "id": "CartPole-v1"}, {"type": "gym", "id": "Pendulum-v1"})


@dataclass(frozen=True)
class Result:
    """One check of one entry: PASS, FAIL or SKIP, and why."""

    status: str
    subject: str
    check: str
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.status} {self.subject}: {self.check}{f' ({self.reason})' if self.reason else ''}"


def run_checks(target: str, registry: Registry) -> Iterator[Result]:
    """Every check of `target`: a plugin (entry-point, distribution or top-level package name) or one entry."""
    plugin, entries = _targets(target, registry)
    for kind, entry in entries:
        subject = f"{registry.kinds[kind][2]} {entry.plugin}:{entry.name}"
        checker = CHECKERS.get(kind)
        if checker is None:
            yield Result("SKIP", subject, "contract", f"the zoo has no checks for {registry.kinds[kind][2]}s")
            continue
        yield from checker(subject, entry, registry, [e for e in registry.entries["env"].values() if e.plugin == entry.plugin])
    if plugin is not None:
        yield from check_commands(plugin, registry)


def _targets(target: str, registry: Registry) -> tuple[str | None, list[tuple[str, Entry]]]:
    """The plugin `target` names and its entries, or (None, [the one entry it names])."""
    for name, info in registry.plugins.items():
        module = getattr(registry.manager.get_plugin(name), "__name__", "") or ""
        if target in (name, info.distribution, module.partition(".")[0]):
            return name, [(kind, entry) for kind in registry.kinds for _, entry in sorted(registry.entries[kind].items())
                          if entry.plugin == name and kind != "kind"]
    found = [(kind, registry.entries[kind][target]) for kind in registry.kinds
             if kind != "kind" and target in registry.entries[kind]]
    if not found:
        raise ZooError(f"no plugin or entry named '{target}'; plugins: {', '.join(sorted(registry.plugins))}")
    return None, found


def _run(subject: str, check: str, body: Callable[[], str | None]) -> Result:
    """`body` as a result: it returns a reason to pass with (or None), raises AssertionError to fail."""
    try:
        return Result("PASS", subject, check, body() or "")
    except AssertionError as exc:
        return Result("FAIL", subject, check, str(exc))
    except Exception as exc:  # the entry's own code failed: that is the finding
        return Result("FAIL", subject, check, f"{type(exc).__name__}: {' '.join(str(exc).split())}")


# -- envs ------------------------------------------------------------------------------------------

def check_env_entry(subject: str, entry: EnvEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    skipped = _needs_values(subject, entry)
    if skipped is not None:
        yield skipped
        return
    params = entry.params()
    yield _run(subject, "gymnasium check_env", lambda: _gymnasium_check(entry, params))
    yield _run(subject, "same seed, same episode", lambda: _same_episode(entry, params))
    yield _run(subject, "finite rewards, observations in the space", lambda: _outputs(entry, params))
    probe = entry.factory(params, 0)
    if hasattr(probe, "action_masks"):
        yield _run(subject, "action masks", lambda: _masks(entry, params))
    modes = (getattr(probe, "metadata", None) or {}).get("render_modes") or []
    yield Result("SKIP", subject, "render modes", f"claims {', '.join(modes) or 'none'}; the zoo's env factories "
                                                  "take no render mode, so rendering is not checked")


def _needs_values(subject: str, entry: Entry) -> Result | None:
    """A SKIP when `entry`'s params have required fields (no check can guess their values); None otherwise."""
    required = [name for name, field in entry.params.model_fields.items() if field.is_required()]
    if not required:
        return None
    return Result("SKIP", subject, "contract", f"its params need values ({', '.join(required)}) that no check can guess")


def _gymnasium_check(entry: EnvEntry, params: Any) -> str:
    from gymnasium.utils.env_checker import check_env

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        check_env(entry.factory(params, 0), skip_render_check=True)
    notes = sorted({str(w.message).split("\n")[0][:80] for w in caught})
    return "render check skipped" + (f"; {len(notes)} warning(s): {notes[0]}" if notes else "")


def _episode(entry: EnvEntry, params: Any, seed: int, steps: int = ENV_STEPS) -> list[tuple[Any, ...]]:
    """What an env returns over `steps` steps of seeded random (legal) actions, resetting when an episode ends."""
    env = entry.factory(params, seed)
    observation, _ = env.reset(seed=seed)
    env.action_space.seed(seed)
    rng = np.random.default_rng(seed)
    record = [("reset", _plain(observation))]
    for _ in range(steps):
        action = _action(env, rng)
        observation, reward, terminated, truncated, _ = env.step(action)
        record.append((_plain(observation), float(reward), bool(terminated), bool(truncated)))
        if terminated or truncated:
            observation, _ = env.reset()
            record.append(("reset", _plain(observation)))
    env.close()
    return record


def _action(env: Any, rng: np.random.Generator) -> Any:
    if hasattr(env, "action_masks"):
        return int(rng.choice(np.flatnonzero(np.asarray(env.action_masks()))))
    return env.action_space.sample()


def _plain(value: Any) -> Any:
    """`value` as comparable plain data (arrays as nested lists, NaN as a string)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in sorted(value.items())}
    if isinstance(value, tuple | list):
        return [_plain(v) for v in value]
    array = np.asarray(value)
    return array.tolist() if array.dtype.kind != "f" else np.where(np.isnan(array), -math.inf, array).tolist()


def _same_episode(entry: EnvEntry, params: Any) -> str:
    first, second = _episode(entry, params, 7), _episode(entry, params, 7)
    differ = next((i for i, (a, b) in enumerate(zip(first, second)) if a != b), None)
    assert differ is None and len(first) == len(second), (
        f"two envs reset with seed 7 and given the same actions differ at step {differ}: "
        "seed every random draw from reset(seed=...)")
    return f"{ENV_STEPS} steps"


def _outputs(entry: EnvEntry, params: Any) -> str:
    env = entry.factory(params, 3)
    observation, _ = env.reset(seed=3)
    rng = np.random.default_rng(3)
    for step in range(ENV_STEPS):
        assert in_space(env.observation_space, observation), (
            f"step {step}: the observation is not in the observation space {env.observation_space}")
        observation, reward, terminated, truncated, _ = env.step(_action(env, rng))
        assert np.isfinite(reward).all(), f"step {step + 1}: the reward {reward!r} is not a finite number"
        if terminated or truncated:
            observation, _ = env.reset()
    return f"{ENV_STEPS} steps"


def _masks(entry: EnvEntry, params: Any) -> str:
    env = entry.factory(params, 5)
    env.reset(seed=5)
    rng = np.random.default_rng(5)
    for step in range(ENV_STEPS):
        mask = np.asarray(env.action_masks())
        assert mask.shape == (env.action_space.n,), f"step {step}: a mask of shape {mask.shape}, not ({env.action_space.n},)"
        assert mask.dtype == bool or set(np.unique(mask)) <= {0, 1}, f"step {step}: the mask is not boolean"
        assert mask.any(), f"step {step}: the mask allows no action"
        _, _, terminated, truncated, _ = env.step(_action(env, rng))
        if terminated or truncated:
            env.reset()
    return f"{ENV_STEPS} steps"


# -- agents ------------------------------------------------------------------------------------------

def check_agent_entry(subject: str, entry: AgentEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    from zoo import Interrupted, execute_run, prepare_run, run_trials

    skipped = _needs_values(subject, entry)
    if skipped is not None:
        yield skipped
        return
    with tempfile.TemporaryDirectory(prefix="zoo-check-") as scratch, _every_step_checked():
        root = Path(scratch)
        env, problems = None, []
        for candidate in [{"type": f"{e.plugin}:{e.name}"} for e in own_envs] + list(FALLBACK_ENVS):
            try:
                spec = _agent_spec(root, entry, candidate)
                prepare_run(spec, registry, root / "runs", root / "runs" / "probe")
            except Exception as exc:
                problems.append(f"{candidate['type']}: {' '.join(str(exc).split())[:160]}")
                continue
            env = candidate
            break
        if env is None:
            yield Result("FAIL", subject, "builds", "on none of its plugin's envs, CartPole-v1 or Pendulum-v1: "
                         + "; ".join(problems))
            return
        spec = _agent_spec(root, entry, env)

        def train(name: str) -> Any:
            folder = prepare_run(spec, registry, root / "runs", root / "runs" / name)
            assert execute_run(folder, registry, progress=False) == "finished", "the run did not finish"
            return folder

        straight = []
        on = " ".join(str(value) for value in env.values())
        yield _run(subject, f"trains {AGENT_STEPS} steps on {on}", lambda: straight.append(train("a")))
        if not straight:
            return
        yield _run(subject, "evaluation", lambda: _evaluated(straight[0]))
        yield _run(subject, "same seed, same numbers", lambda: _same_numbers(straight[0], train("b"), "a second run"))

        def resumed() -> Any:
            folder = prepare_run(spec, registry, root / "runs", root / "runs" / "c")
            answers = iter([False])
            try:
                run_trials(folder.path, [0], registry=registry, should_stop=lambda: next(answers, True))
            except Interrupted:
                pass
            assert execute_run(folder, registry, progress=False) == "finished", "the resumed run did not finish"
            return folder

        cut = []
        yield _run(subject, "save/load round trip (interrupted at a checkpoint, resumed)", lambda: cut.append(resumed()))
        if not cut:
            return
        if json.loads(cut[0].manifest_path.read_text()).get("exact_resume"):
            yield _run(subject, "exact resume", lambda: _same_numbers(straight[0], cut[0], "the resumed run"))
        else:
            yield Result("SKIP", subject, "exact resume", "the agent does not claim exact_resume")


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


def _agent_spec(root: Path, entry: AgentEntry, env: dict[str, Any]) -> Path:
    spec = {"name": "check", "env": env, "agent": {"type": f"{entry.plugin}:{entry.name}"},
            "budget": {"steps": AGENT_STEPS, "checkpoint_every": AGENT_CHECKPOINT, "eval_episodes": AGENT_EVAL},
            "seed": 11, "logging": {"tensorboard": False, "progress": False}}
    path = root / "check.yaml"
    path.write_text(yaml.safe_dump(spec, sort_keys=False))
    return path


def _rows(folder: Any) -> list[str]:
    return (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()


def _evaluated(folder: Any) -> str:
    result = json.loads((folder.trial_dir(0) / "result.json").read_text())
    returns = result.get("eval_returns")
    assert isinstance(returns, list) and len(returns) == AGENT_EVAL, f"result.json holds eval_returns {returns!r}"
    assert all(math.isfinite(r) for r in returns), f"an evaluation return is not finite: {returns}"
    return f"{AGENT_EVAL} episodes"


def _same_numbers(reference: Any, other: Any, what: str) -> str:
    expected, got = _rows(reference), _rows(other)
    differ = next((i for i, (a, b) in enumerate(zip(expected, got)) if a != b), None)
    assert differ is None and len(expected) == len(got), (
        f"{what} wrote other metrics than the first, from row {differ if differ is not None else min(len(expected), len(got))}")
    return f"{len(expected)} metrics rows"


# -- meta-controllers -------------------------------------------------------------------------------

def check_meta_controller_entry(subject: str, entry: MetaControllerEntry, registry: Registry,
                                own_envs: list[Entry]) -> Iterator[Result]:
    from zoo import MetaController

    skipped = _needs_values(subject, entry)
    if skipped is not None:
        yield skipped
        return

    def build(seed: int) -> Any:
        return entry.factory(entry.params(), SPACE, np.random.default_rng(seed))

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

    yield _run(subject, "samples the space, learns from returns", samples)
    yield _run(subject, "state_dict restores its future choices", restores)
    if isinstance(build(0), BestRegion):
        def best() -> str:
            control, twin = build(0), build(0)
            point = control.best(np.random.default_rng(3))
            assert SPACE.contains(point.value), f"best() returned {point.value}, outside the space"
            assert [control.sample().value.tolist() for _ in range(5)] == [twin.sample().value.tolist() for _ in range(5)], (
                "best() changed its state")
            return ""

        yield _run(subject, "best() is in the space and changes nothing", best)


# -- rule sets, reporters, commands ------------------------------------------------------------------

def check_rule_set_entry(subject: str, entry: Any, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    def parses() -> str:
        from zoo_gohr.engine.parser import load_rules

        files = sorted(Path(entry.path).rglob("*.txt"))
        assert files, f"{entry.path} holds no rule file (*.txt)"
        for path in files:
            try:
                load_rules(path)
            except Exception as exc:
                raise AssertionError(f"{path}: {' '.join(str(exc).split())}") from None
        return f"{len(files)} file{'' if len(files) == 1 else 's'}"

    yield _run(subject, "every rule file parses", parses)


def check_reporter_entry(subject: str, entry: ReporterEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    def envs() -> str:
        assert entry.envs, "it names no env whose runs it reports on"
        unknown = [env for env in entry.envs if env not in registry.entries["env"]]
        assert not unknown, f"it reports on {', '.join(unknown)}, which no loaded plugin registers"
        assert entry.compare is None or callable(entry.compare), "its compare is not callable"
        return ", ".join(entry.envs)

    yield _run(subject, "reports on registered envs", envs)


def check_commands(plugin: str, registry: Registry) -> Iterator[Result]:
    import typer
    from typer.testing import CliRunner

    owner = registry.manager.get_plugin(plugin)
    hooks = [impl.function for impl in registry.manager.hook.register_commands.get_hookimpls() if impl.plugin is owner]
    if not hooks:
        return
    app = typer.Typer()
    app.command("zoo-check-placeholder", hidden=True)(lambda: None)  # typer runs a lone command without its name
    for hook in hooks:
        hook(cli=app)
    names = [command.name or command.callback.__name__.replace("_", "-") for command in app.registered_commands
             if not command.hidden] + [group.name for group in app.registered_groups]
    for name in names:
        def helps(name: str = name) -> str:
            result = CliRunner().invoke(app, [name, "--help"])
            assert result.exit_code == 0, f"--help exits {result.exit_code}: {' '.join(result.output.split())[:200]}"
            return "--help works"

        yield _run(f"command {plugin}:{name}", "registered", helps)


CHECKERS: dict[str, Callable[..., Iterator[Result]]] = {
    "env": check_env_entry,
    "agent": check_agent_entry,
    "meta_controller": check_meta_controller_entry,
    "rule_set": check_rule_set_entry,
    "reporter": check_reporter_entry,
}
