"""``zoo check``: it passes on sound plugins and fails, naming the check, on broken ones."""

from __future__ import annotations

import math
import random
import types
from pathlib import Path

import numpy as np
import pytest
from zoo_check.testing import check_plugin

import zoo.registry
from zoo import AgentEntry, EnvEntry, MetaControllerEntry, hookimpl
from zoo.cli import main
from zoo.registry import Registry

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def example(monkeypatch):
    """The example third-party plugin (tests/thirdparty_plugin), importable in this process."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "thirdparty_plugin" / "src"))
    import zoo_example.plugin

    return zoo_example


def registry_with(name: str, plugin) -> Registry:
    registry = Registry()
    registry.load_entry_points()
    registry.add(name, plugin)
    return registry


def failures(capsys, target: str, registry: Registry, monkeypatch) -> tuple[int, list[str]]:
    """The exit status of ``zoo check TARGET`` and the lines of its failed checks."""
    monkeypatch.setattr(zoo.registry, "_default", registry)
    code = main(["check", target])
    return code, [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL")]


def env_plugin(example, env_class) -> types.SimpleNamespace:
    params = example.corridor.CorridorParams
    return types.SimpleNamespace(register_envs=hookimpl(lambda register: register(EnvEntry(
        name="bad-corridor", params=params, factory=lambda p, seed: env_class(p)))))


@pytest.mark.slow  # trains the example agent four times, about 10 seconds
def test_the_example_plugin_passes(example):
    results = check_plugin("example", registry_with("example", example.plugin))
    assert {(r.subject, r.check) for r in results if r.status == "PASS"} >= {
        ("environment example:corridor", "gymnasium check_env"),
        ("environment example:corridor", "same seed, same episode"),
        ("agent example:tabular-q", "same seed, same numbers"),
        ("agent example:tabular-q", "save/load round trip (interrupted at a checkpoint, resumed)"),
        ("command example:corridor", "registered"),
    }


def test_cheap_built_in_plugins_pass(capsys, monkeypatch):
    registry = Registry()
    registry.load_entry_points()
    for target in ("bandits", "gohr", "gym", "minatar"):  # gohr: rule sets; the envs and human agent are skipped
        code, failed = failures(capsys, target, registry, monkeypatch)
        assert (code, failed) == (0, [])


def test_a_non_deterministic_env_fails_the_seeding_check(example, capsys, monkeypatch):
    class Unseeded(example.corridor.CorridorEnv):
        def step(self, action):
            return super().step(random.randrange(2))  # the global generator: no seed reaches it

    code, failed = failures(capsys, "mini", registry_with("mini", env_plugin(example, Unseeded)), monkeypatch)
    assert code == 1
    checks = {line.partition(" (")[0] for line in failed}
    assert "FAIL environment mini:bad-corridor: same seed, same episode" in checks
    assert checks <= {"FAIL environment mini:bad-corridor: same seed, same episode",  # gymnasium's checker steps
                      "FAIL environment mini:bad-corridor: gymnasium check_env"}  # once, so it sees it by chance


def test_nan_rewards_fail_the_output_check(example, capsys, monkeypatch):
    class NanReward(example.corridor.CorridorEnv):
        def step(self, action):
            observation, reward, terminated, truncated, info = super().step(action)
            return observation, math.nan if self.position == 1 else reward, terminated, truncated, info

    code, failed = failures(capsys, "mini", registry_with("mini", env_plugin(example, NanReward)), monkeypatch)
    assert code == 1
    assert any(line.startswith("FAIL environment mini:bad-corridor: finite rewards, observations in the space (step")
               and "the reward nan is not a finite number" in line for line in failed)


def test_an_agent_claiming_exact_resume_that_is_not_fails_it(example, capsys, monkeypatch):
    class Forgetful(example.qlearning.QLearningAgent):
        exact_resume = True

        def load(self, directory):
            super().load(directory)
            self.rng = np.random.default_rng(12345)  # its exploration is not the one it saved

    plugin = types.SimpleNamespace(
        register_envs=hookimpl(lambda register: register(EnvEntry(
            name="corridor", params=example.corridor.CorridorParams, factory=example.corridor.make_corridor))),
        register_agents=hookimpl(lambda register: register(AgentEntry(
            name="forgetful-q", params=example.qlearning.QLearningParams, factory=Forgetful))))
    code, failed = failures(capsys, "mini:forgetful-q", registry_with("mini", plugin), monkeypatch)
    assert code == 1
    assert len(failed) == 1
    assert failed[0].startswith("FAIL agent mini:forgetful-q: exact resume (the resumed run wrote other metrics "
                                "than the first, from row ")


def test_a_meta_controller_that_forgets_its_generator_fails_the_state_check(capsys, monkeypatch):
    registry = Registry()
    registry.load_entry_points()
    good = registry.get("meta_controller", "uniform")

    def forgetful(params, space, rng):
        control = good.factory(params, space, rng)
        control.load_state_dict = lambda state: None  # restores nothing
        return control

    registry.add("mini", types.SimpleNamespace(register_meta_controllers=hookimpl(lambda register: register(
        MetaControllerEntry(name="forgetful", params=good.params, factory=forgetful)))))
    code, failed = failures(capsys, "mini", registry, monkeypatch)
    assert code == 1
    assert [line.partition(" (")[0] for line in failed] == [
        "FAIL meta-controller mini:forgetful: state_dict restores its future choices"]
