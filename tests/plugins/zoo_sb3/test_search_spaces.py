"""rl-baselines3-zoo's search spaces, shipped as data by the sb3 plugin: each loads, each of its values is valid
for its agent, Optuna samples specs from it, and ``zoo tune`` takes one by name."""

from __future__ import annotations

import json

import optuna
import pytest
import yaml
from zoo_tune.tune import Categorical, load_tuning, registered_space, suggest

from zoo.cli import main
from zoo.errors import SpecError, ZooError
from zoo.overrides import Overrides
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_text

#: the env each space's agent is checked on (discrete or continuous actions)
ENVS = {"ppo": "CartPole-v1", "a2c": "CartPole-v1", "dqn": "CartPole-v1", "qrdqn": "CartPole-v1",
        "recurrent-ppo": "CartPole-v1", "sac": "Pendulum-v1", "td3": "Pendulum-v1"}


def _spec(agent: str, sets: list[str]):
    text = f"env: {{type: gym, id: {ENVS[agent]}}}\nagent: {{type: {agent}}}\nbudget: {{steps: 100}}\n"
    return parse_spec(Overrides(tuple(sets)).apply(load_text(text, "<spec>")), get_registry())


def test_the_sb3_plugin_registers_a_space_per_algorithm_rl_zoo_tunes():
    registry = get_registry()
    assert sorted(n for n in registry.names("search_space") if registry.get("search_space", n).plugin == "sb3") == sorted(ENVS)


@pytest.mark.parametrize("agent", sorted(ENVS))
def test_every_value_of_a_space_is_valid_for_its_agent(agent):
    space = registered_space(agent, get_registry())
    assert len(space) >= 6
    for path, dist in space.items():
        values = dist.choices if isinstance(dist, Categorical) else [dist.low, dist.high]
        for value in values:
            spec = _spec(agent, [f"{path}={json.dumps(value)}"])
            node = spec.model_dump()
            for part in path.split("."):
                node = node[part]
            assert node == value or (isinstance(value, dict) and {k: v for k, v in node.items() if v is not None} == value), path


@pytest.mark.parametrize("agent", sorted(ENVS))
def test_optuna_samples_valid_specs_from_a_space(agent):
    space = registered_space(agent, get_registry())
    study = optuna.create_study(sampler=optuna.samplers.RandomSampler(seed=0))
    seen = set()
    for _ in range(8):
        values = suggest(study.ask(), space)
        _spec(agent, [f"{path}={json.dumps(value)}" for path, value in values.items()])
        seen.add(json.dumps(values.get("agent.policy_kwargs.net_arch")))
    assert len(seen) > 1  # the layer choices (lists or mappings) are drawn, not only the first


def test_zoo_tune_takes_a_search_space_by_name(tmp_path, capsys):
    (tmp_path / "spec.yaml").write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: a2c}\n"
                                        "budget: {steps: 64}\nlogging: {tensorboard: false, progress: false}\n")
    (tmp_path / "tune.yaml").write_text("spec: spec.yaml\nn_trials: 2\nsampler: {type: random, seed: 3}\n"
                                        "pruner: {type: none}\nsearch_space: a2c\nspace:\n  agent.n_steps: {type: categorical, choices: [8, 16]}\n")
    assert main(["tune", str(tmp_path / "tune.yaml"), "--runs-dir", str(tmp_path / "runs")]) == 0
    summary = json.loads((tmp_path / "runs" / "tune.tune" / "tune.json").read_text())
    assert [t["state"] for t in summary["trials"]] == ["complete", "complete"]
    assert set(summary["trials"][0]["params"]) == set(yaml.safe_load(get_registry().get("search_space", "a2c").path.read_text()))
    assert {t["params"]["agent.n_steps"] for t in summary["trials"]} <= {8, 16}  # the file's own space replaces rl-zoo's
    best = yaml.safe_load((tmp_path / "runs" / "tune.tune" / "best.yaml").read_text())
    assert isinstance(best["agent"]["policy_kwargs"]["net_arch"], dict)


def test_an_unknown_or_missing_space_is_refused(tmp_path):
    with pytest.raises(ZooError, match="unknown search space 'ppo2' \\(did you mean 'ppo'\\?\\)"):
        registered_space("ppo2", get_registry())
    (tmp_path / "tune.yaml").write_text("spec: spec.yaml\n")
    with pytest.raises(SpecError, match="give the values to search: space .* or search_space"):
        load_tuning(tmp_path / "tune.yaml")
