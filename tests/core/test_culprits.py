"""Failures during a run name the plugin, the entry and the call in one line; envs' rewards and observations are
checked as they train."""

from __future__ import annotations

import json
import math
import types
from pathlib import Path

import pytest

import zoo.cli
import zoo.registry
from zoo import AgentEntry, EnvEntry, hookimpl
from zoo.cli import main
from zoo.registry import Registry

ROOT = Path(__file__).resolve().parents[2]

SPEC = """\
name: {name}
env: {{type: {env}, length: 5}}
agent: {{type: {agent}}}
budget: {{steps: 400, checkpoint_every: 200, eval_episodes: 2}}
seed: 1
logging: {{tensorboard: false, progress: false}}
"""


@pytest.fixture
def example(monkeypatch):
    """The modules of the example third-party plugin (tests/thirdparty_plugin), importable in this process."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "thirdparty_plugin" / "src"))
    from zoo_example import corridor, qlearning

    return types.SimpleNamespace(corridor=corridor, qlearning=qlearning)


@pytest.fixture
def zoo_with(example, monkeypatch, tmp_path):
    """Run ``zoo train`` on a spec of `env` and `agent`, with the broken plugin ``mini`` loaded besides the example's;
    returns (exit code, the lines of stderr after the run folder's, the run's manifest)."""

    def register(plugin: types.SimpleNamespace) -> None:
        registry = Registry()
        registry.add("example", types.SimpleNamespace(
            register_envs=hookimpl(lambda register: register(EnvEntry(
                name="corridor", params=example.corridor.CorridorParams, factory=example.corridor.make_corridor))),
            register_agents=hookimpl(lambda register: register(AgentEntry(
                name="tabular-q", params=example.qlearning.QLearningParams, factory=example.qlearning.QLearningAgent)))))
        registry.add("mini", plugin)
        monkeypatch.setattr(zoo.registry, "_default", registry)
        monkeypatch.setattr(zoo.cli, "_commands_added", True)  # train is the kernel's; add no plugin's commands from here

    def train(plugin, env: str, agent: str, capsys, *options: str):
        register(plugin)
        spec = tmp_path / "spec.yaml"
        spec.write_text(SPEC.format(name=f"{env}-{agent}", env=env, agent=agent))
        code = main(["train", str(spec), "--run-dir", str(tmp_path / "run"), *options])
        manifest = json.loads((tmp_path / "run" / "run.json").read_text())
        errors = [line for line in capsys.readouterr().err.splitlines() if not line.startswith("run folder:")]
        return code, errors, manifest

    return train


def mini_plugin(example, *, env_class=None, agent_class=None) -> types.SimpleNamespace:
    hooks = {}
    if env_class is not None:
        hooks["register_envs"] = hookimpl(lambda register: register(EnvEntry(
            name="bad-corridor", params=example.corridor.CorridorParams,
            factory=lambda params, seed: env_class(params))))
    if agent_class is not None:
        hooks["register_agents"] = hookimpl(lambda register: register(AgentEntry(
            name="nstep-sarsa", params=example.qlearning.QLearningParams, factory=agent_class)))
    return types.SimpleNamespace(**hooks)


def test_a_crashing_agent_is_named_in_one_line(example, zoo_with, capsys):
    class Crashing(example.qlearning.QLearningAgent):
        def learn(self, steps):
            if self.steps >= 200:
                raise IndexError("index 7 is out of bounds for axis 0 with size 5")
            super().learn(steps)

    code, err, manifest = zoo_with(mini_plugin(example, agent_class=Crashing), "corridor", "nstep-sarsa", capsys)
    assert code == 1 and len(err) == 1
    assert err[0].startswith("error: run ")
    assert ("failed: plugin mini, agent nstep-sarsa, learn: IndexError: index 7 is out of bounds for axis 0 with size 5"
            f" ({__file__}:") in err[0]
    assert manifest["status"] == "failed" and "IndexError" in manifest["traceback"]


def test_a_nan_reward_is_refused_naming_the_envs_plugin(example, zoo_with, capsys):
    class NanReward(example.corridor.CorridorEnv):
        def step(self, action):
            observation, reward, terminated, truncated, info = super().step(action)
            return observation, math.nan, terminated, truncated, info

    code, err, manifest = zoo_with(mini_plugin(example, env_class=NanReward), "bad-corridor", "tabular-q", capsys)
    assert code == 1 and len(err) == 1
    assert err[0].endswith("failed: plugin mini, env bad-corridor, step: the reward nan is not a finite number")
    assert manifest["status"] == "failed"


def test_an_env_that_raises_is_blamed_though_the_agent_called_it(example, zoo_with, capsys):
    class Broken(example.corridor.CorridorEnv):
        def step(self, action):
            raise KeyError("cell")

    code, err, _ = zoo_with(mini_plugin(example, env_class=Broken), "bad-corridor", "tabular-q", capsys)
    assert code == 1 and len(err) == 1
    assert "failed: plugin mini, env bad-corridor, step: KeyError: 'cell'" in err[0]


def test_an_observation_outside_the_space_is_refused(example, zoo_with, capsys, monkeypatch):
    class Escaping(example.corridor.CorridorEnv):
        def step(self, action):
            observation, *rest = super().step(action)
            return 99, *rest

    monkeypatch.setenv("ZOO_CHECK_EVERY", "1")
    code, err, _ = zoo_with(mini_plugin(example, env_class=Escaping), "bad-corridor", "tabular-q", capsys)
    assert code == 1 and len(err) == 1
    assert "failed: plugin mini, env bad-corridor, step: the observation (int) is not in its observation space" in err[0]


def test_the_traceback_is_shown_with_debug(example, zoo_with, capsys):
    class Crashing(example.qlearning.QLearningAgent):
        def learn(self, steps):
            raise IndexError("out of bounds")

    with pytest.raises(Exception) as raised:
        zoo_with(mini_plugin(example, agent_class=Crashing), "corridor", "nstep-sarsa", capsys, "--debug")
    assert isinstance(raised.value.__cause__.__cause__, IndexError)


def test_observations_are_checked_every_hundredth_step_by_default(example):
    from zoo.culprits import PluginFailed, checked_env

    env = checked_env(example.corridor.make_corridor(example.corridor.CorridorParams(length=5), 0), "mini", "corridor")
    space = env.observation_space
    env.observation_space = type(space)(2)  # from now on most cells are outside it
    env.reset(seed=0)  # reset returns cell 0, inside
    steps = 0
    with pytest.raises(PluginFailed, match="plugin mini, env corridor, step: the observation"):
        while True:
            steps += 1
            _, _, terminated, truncated, _ = env.step(1)
            if terminated or truncated:
                env.reset()
    assert steps % 100 == 0


def test_the_meta_controllers_package_takes_the_blame_for_what_raises_in_it(tmp_path, monkeypatch):
    from zoo.culprits import Suspect, blame

    (tmp_path / "culprit_bandits.py").write_text("def sample(arms):\n    return arms[5]\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import culprit_bandits

    def learn():
        culprit_bandits.sample([])

    with pytest.raises(IndexError) as raised:
        learn()
    agent = Suspect("agent", "gdi-like", "mine", learn.__module__.partition(".")[0])
    meta = Suspect("meta_controller", "ucb", "bandits", "culprit_bandits")
    assert str(blame(raised.value, agent, (meta,))) == (
        f"plugin bandits, meta-controller ucb, sample: IndexError: list index out of range ({tmp_path}/culprit_bandits.py:2)")
    without_meta = str(blame(raised.value, agent))  # the outermost frame of the agent's package names the call
    assert without_meta.startswith("plugin mine, agent gdi-like, test_the_meta_controllers_package_takes_the_blame")
    assert f"IndexError: list index out of range ({__file__}:" in without_meta
    assert blame(raised.value, Suspect("agent", "other", "other", "not_in_the_traceback")) is None
