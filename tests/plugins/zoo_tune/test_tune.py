"""zoo tune: Optuna trials as ordinary runs, pruning on the running return, resuming from the RDB storage."""

from __future__ import annotations

import json

import pytest
import yaml
from zoo_catalog.index import RunIndex
from zoo_tune.tune import load_tuning, objective, tune

from zoo.cli import main
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.store import RunFolder

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 128, eval_episodes: 2}
logging: {tensorboard: false, progress: false}
"""

TUNING = """\
spec: spec.yaml
n_trials: {n_trials}
sampler: {{type: random, seed: 1}}
pruner: {pruner}
space:
  agent.learning_rate: {{type: float, low: 1.0e-4, high: 1.0e-2, log: true}}
  agent.gamma: {{type: categorical, choices: [0.9, 0.99]}}
"""


def _files(tmp_path, n_trials=2, pruner="{type: none}", **replace):
    (tmp_path / "spec.yaml").write_text(SPEC)
    text = TUNING.format(n_trials=n_trials, pruner=pruner)
    for old, new in replace.items():
        text = text.replace(old, new)
    path = tmp_path / "cart.yaml"
    path.write_text(text)
    return path


def test_trials_are_runs_in_the_index_and_a_second_call_runs_only_the_missing_ones(tmp_path):
    runs = tmp_path / "runs"
    summary = tune(_files(tmp_path), get_registry(), runs)
    assert [t["state"] for t in summary["trials"]] == ["complete", "complete"]
    rows = {row["id"]: row for row in RunIndex(runs).query()}
    for trial in summary["trials"]:
        row = rows[trial["run"]]
        assert row["status"] == "finished" and row["name"] == f"cart.t{trial['number']:03d}"
        folder = RunFolder(runs / trial["run"])
        assert trial["value"] == objective(folder)  # the mean evaluation return of the run
        resolved = yaml.safe_load((folder.path / "spec.yaml").read_text())
        assert resolved["agent"]["learning_rate"] == pytest.approx(trial["params"]["agent.learning_rate"])
        assert resolved["agent"]["gamma"] == trial["params"]["agent.gamma"]
    best = max(summary["trials"], key=lambda t: t["value"])
    assert summary["best"]["number"] == best["number"]
    best_spec = yaml.safe_load((runs / "cart.tune" / "best.yaml").read_text())
    assert best_spec["agent"]["learning_rate"] == pytest.approx(best["params"]["agent.learning_rate"])
    summary = tune(_files(tmp_path, n_trials=3), get_registry(), runs)  # resumes the Optuna study
    assert [t["number"] for t in summary["trials"]] == [0, 1, 2] and len(RunIndex(runs).query()) == 3


def test_a_list_choice_is_reported_as_the_list_the_run_used_not_its_optuna_label(tmp_path):
    """Optuna stores a list choice by its JSON text; tune.json gives the spec's value, which `--set` takes back."""
    path = _files(tmp_path, **{"agent.gamma: {type: categorical, choices: [0.9, 0.99]}":
                               "agent.policy_kwargs: {type: categorical, choices: [{net_arch: [8]}, {net_arch: [16, 16]}]}"})
    summary = tune(path, get_registry(), tmp_path / "runs")
    for trial in summary["trials"] + [summary["best"]]:
        chosen = trial["params"]["agent.policy_kwargs"]
        assert chosen in ({"net_arch": [8]}, {"net_arch": [16, 16]})
        resolved = yaml.safe_load((tmp_path / "runs" / trial["run"] / "spec.yaml").read_text())
        assert resolved["agent"]["policy_kwargs"]["net_arch"] == chosen["net_arch"]
    assert json.loads((tmp_path / "runs" / "cart.tune" / "tune.json").read_text())["best"] == summary["best"]


def test_a_pruner_stops_trials_early_and_leaves_their_runs_interrupted(tmp_path, capsys):
    path = _files(tmp_path, pruner="{type: threshold, lower: 1.0e9}")
    runs = tmp_path / "runs"
    assert main(["tune", str(path), "--runs-dir", str(runs)]) == 2
    assert "no trial of cart completed (all pruned or failed)" in capsys.readouterr().err
    states = json.loads((runs / "cart.tune" / "tune.json").read_text())["trials"]
    assert [t["state"] for t in states] == ["pruned", "pruned"]
    for row in RunIndex(runs).query():
        folder = RunFolder(runs / row["id"])
        assert row["status"] == "interrupted" and "pruned by zoo tune" in folder.manifest()["error"]
        assert not (folder.trial_dir(0) / "result.json").exists()


def test_a_search_space_is_checked_against_the_spec_before_any_trial(tmp_path):
    with pytest.raises(SpecError, match=r"agent.learnin_rate: unknown field 'learnin_rate' \(did you mean 'learning_rate'\?\)"):
        tune(_files(tmp_path, **{"agent.learning_rate:": "agent.learnin_rate:"}), get_registry(), tmp_path / "runs")
    with pytest.raises(SpecError) as caught:
        load_tuning(_files(tmp_path, **{"low: 1.0e-4, high: 1.0e-2": "low: 1.0, high: 0.5"}))
    assert str(caught.value).startswith(f"{tmp_path / 'cart.yaml'}:6:3: space.agent.learning_rate: need low < high (and low > 0 on a log scale)")
    assert not (tmp_path / "runs").exists()


def test_zoo_validate_checks_a_tuning_file_and_its_space_against_the_spec(tmp_path, capsys):
    good = _files(tmp_path, n_trials=7)
    assert main(["validate", str(good)]) == 0
    assert capsys.readouterr().out == f"ok: {good} (tuning: cart: 7 trials over 2 values of spec.yaml)\n"
    assert main(["validate", "--build", str(good)]) == 0
    assert capsys.readouterr().out.endswith("values of spec.yaml, built)\n")

    bad = _files(tmp_path, **{"agent.learning_rate:": "agent.learnin_rate:"})
    assert main(["validate", str(bad)]) == 2
    assert "agent.learnin_rate: unknown field 'learnin_rate' (did you mean 'learning_rate'?)" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()
