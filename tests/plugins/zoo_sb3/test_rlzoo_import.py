"""``zoo import-rlzoo`` on rl-baselines3-zoo's own hyperparameter files (the rl-zoo3 package): the classic control
entries of PPO, A2C, DQN, SAC and TD3 import as they are written and train; what cannot be mapped is listed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rl_zoo3  # the hyperparameter files: the rlzoo extra (in dev)
import yaml
from zoo_sb3.rlzoo import FILE_AGENTS, import_entry, python_value, read_entries

from zoo.cli import main
from zoo.errors import ZooError
from zoo.registry import get_registry
from zoo.spec import load_spec

HYPERPARAMS = Path(rl_zoo3.__file__).parent / "hyperparams"
ALGORITHMS = ("ppo", "a2c", "dqn", "sac", "td3")
ENVS = ("CartPole-v1", "Acrobot-v1", "MountainCarContinuous-v0", "Pendulum-v1")
#: the entries rl-zoo3 has for these algorithms and envs (DQN has no continuous, SAC and TD3 no discrete ones)
CASES = [(algo, env) for algo in ALGORITHMS for env in ENVS if env in read_entries(HYPERPARAMS / f"{algo}.yml")]


def test_rl_zoo_has_the_classic_control_entries_the_tests_expect():
    assert len(CASES) == 14 and ("dqn", "CartPole-v1") in CASES and ("td3", "Pendulum-v1") in CASES


def _import(tmp_path: Path, algo: str, env: str, capsys) -> tuple[Path, list[str]]:
    spec = tmp_path / f"{algo}-{env}.yaml"
    capsys.readouterr()
    assert main(["import-rlzoo", str(HYPERPARAMS / f"{algo}.yml"), env, "-o", str(spec)]) == 0
    return spec, [line for line in capsys.readouterr().err.splitlines() if line.startswith("not mapped:")]


@pytest.mark.parametrize(("algo", "env"), CASES, ids=[f"{a}-{e}" for a, e in CASES])
def test_an_entry_imports_as_written(algo, env, tmp_path, capsys):
    spec_path, unmapped = _import(tmp_path, algo, env, capsys)
    assert unmapped == []  # every key of these entries has its place in a zoo spec
    entry = read_entries(HYPERPARAMS / f"{algo}.yml")[env]
    spec = load_spec(spec_path, get_registry())
    agent = spec.agent.model_dump()
    assert spec.env.id == env and spec.budget.steps == int(float(entry["n_timesteps"]))
    for key, value in entry.items():
        if key in ("n_timesteps", "normalize", "policy_kwargs", "noise_type", "noise_std"):
            continue
        assert agent[key] == value, key
    if "normalize" in entry:
        assert agent["normalize_observations"] and agent["normalize_rewards"]
    if "noise_type" in entry:
        assert agent["action_noise"] == {"type": entry["noise_type"], "std": entry["noise_std"]}
    if "policy_kwargs" in entry:
        written = python_value(entry["policy_kwargs"])
        assert {k: v for k, v in agent["policy_kwargs"].items() if v is not None} == written


#: entries that train in about a second; the others (replay buffers of 1e5, rollouts of 8 x 1024) are in the slow lane
QUICK = {("a2c", env) for env in ENVS} | {("dqn", "CartPole-v1")}


@pytest.mark.parametrize(("algo", "env"), [pytest.param(*case, marks=() if case in QUICK else pytest.mark.slow) for case in CASES],
                         ids=[f"{a}-{e}" for a, e in CASES])
def test_an_imported_entry_trains(algo, env, tmp_path, capsys):
    spec_path, _ = _import(tmp_path, algo, env, capsys)
    run = tmp_path / "run"
    assert main(["train", str(spec_path), "--set", "budget.steps=200", "--run-dir", str(run), "--no-progress"]) == 0
    assert json.loads((run / "run.json").read_text())["status"] == "finished"
    assert json.loads((run / "trials/000/result.json").read_text())["steps"] >= 200


def test_the_written_expressions_become_data(tmp_path, capsys):
    spec_path, _ = _import(tmp_path, "ppo", "MountainCarContinuous-v0", capsys)
    agent = yaml.safe_load(spec_path.read_text())["agent"]
    assert agent["policy_kwargs"] == {"log_std_init": -3.29, "ortho_init": False} and agent["use_sde"] is True
    spec_path, _ = _import(tmp_path, "a2c", "Pendulum-v1", capsys)
    assert yaml.safe_load(spec_path.read_text())["agent"]["learning_rate"] == "lin_7e-4"
    spec_path, _ = _import(tmp_path, "td3", "MountainCarContinuous-v0", capsys)
    agent = yaml.safe_load(spec_path.read_text())["agent"]
    assert agent["action_noise"] == {"type": "ornstein-uhlenbeck", "std": 0.5} and agent["policy_kwargs"] == {"net_arch": [400, 300]}


def test_python_values_are_read_never_evaluated():
    assert python_value("dict(net_arch=dict(pi=[64], vf=[32]), activation_fn=nn.ReLU, log_std_init=-2)") == {
        "net_arch": {"pi": [64], "vf": [32]}, "activation_fn": "nn.ReLU", "log_std_init": -2}
    assert python_value("{'norm_obs': True, 'norm_reward': False}") == {"norm_obs": True, "norm_reward": False}
    for text in ("dict(x=__import__('os').system('true'))", "dict(n=2 ** 10)", "lambda: 0"):
        with pytest.raises(ValueError, match="neither a literal"):
            python_value(text)


def test_what_cannot_be_mapped_is_listed_one_line_a_key(tmp_path, capsys):
    entry = {"n_timesteps": 1e4, "policy": "MlpPolicy", "n_envs": 2, "env_wrapper": ["rl_zoo3.wrappers.HistoryWrapper"],
             "callback": "rl_zoo3.callbacks.ParallelTrainCallback", "normalize": "dict(norm_obs=True, clip_obs=5.0)",
             "policy_kwargs": "dict(net_arch=[8], n_quantiles=3, activation_fn=nn.ReLU)", "frame_stack": 2,
             "learning_rate": 7.0, "replay_buffer_kwargs": "dict(x=open('f'))"}
    (tmp_path / "ppo.yml").write_text(yaml.safe_dump({"CartPole-v1": entry}))
    spec = tmp_path / "spec.yaml"
    assert main(["import-rlzoo", str(tmp_path / "ppo.yml"), "CartPole-v1", "-o", str(spec)]) == 0
    lines = capsys.readouterr().err.splitlines()
    unmapped = sorted(line.split(":")[1].strip() for line in lines if line.startswith("not mapped:"))
    assert unmapped == ["callback", "env_wrapper", "learning_rate", "normalize.clip_obs", "policy_kwargs.n_quantiles",
                        "replay_buffer_kwargs"]
    assert any("policy_kwargs.n_quantiles: refused by the zoo's ppo agent: unknown field 'n_quantiles'" in line for line in lines)
    agent = load_spec(spec, get_registry()).agent
    assert (agent.n_envs, agent.frame_stack, agent.normalize_observations, agent.normalize_rewards) == (2, 2, True, False)
    assert agent.policy_kwargs.net_arch == [8] and agent.policy_kwargs.activation_fn == "ReLU"


def test_bad_requests_are_refused_and_nothing_is_written(tmp_path, capsys):
    ppo = str(HYPERPARAMS / "ppo.yml")
    assert main(["import-rlzoo", ppo, "CartPol-v1"]) == 2
    assert "no entry 'CartPol-v1' in the file (did you mean 'CartPole-v1'?)" in capsys.readouterr().err
    (tmp_path / "mine.yml").write_text(yaml.safe_dump({"CartPole-v1": {"policy": "MlpPolicy"}}))
    assert main(["import-rlzoo", str(tmp_path / "mine.yml"), "CartPole-v1"]) == 2
    assert "the file name names no algorithm the zoo imports ('mine'" in capsys.readouterr().err
    assert main(["import-rlzoo", str(tmp_path / "mine.yml"), "CartPole-v1", "--algo", "ppo2"]) == 2
    assert "(did you mean 'ppo'?)" in capsys.readouterr().err
    existing = tmp_path / "taken.yaml"
    existing.write_text("mine\n")
    assert main(["import-rlzoo", ppo, "CartPole-v1", "-o", str(existing)]) == 2
    assert existing.read_text() == "mine\n"


def test_every_entry_of_rl_zoo_imports_or_names_why_not():
    """All of rl-zoo3's entries for the zoo's algorithms: a valid spec, or an error about an env not installed here."""
    imported = 0
    for stem, agent in FILE_AGENTS.items():
        entries = read_entries(HYPERPARAMS / f"{stem}.yml")
        for env in entries:
            try:
                import_entry(entries, env, agent, get_registry())
                imported += 1
            except ZooError as exc:
                assert f"'{env}' is not a registered gymnasium id" in str(exc), (stem, env)
    assert imported >= 60
