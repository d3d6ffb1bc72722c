"""Command-line overrides (--set, --seed, --trials, --backend, --address): applied before validation, reported where they were typed."""

from __future__ import annotations

import json

import pytest
import yaml

from zoo.cli import main
from zoo.errors import SpecError
from zoo.overrides import Overrides, parse_assignment
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_text

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 64, checkpoint_every: 64}
seeds: [4, 5]
trials: 2
logging: {tensorboard: false, progress: false}
"""


def _spec(overrides: Overrides):
    return parse_spec(overrides.apply(load_text(SPEC, "spec.yaml")), get_registry())


def test_values_are_read_as_yaml_and_paths_walk_mappings_and_lists():
    assert parse_assignment("agent.learning_rate=3e-4") == (("agent", "learning_rate"), 3e-4)
    assert parse_assignment("agent.policy_kwargs.net_arch=[64, 64]") == (("agent", "policy_kwargs", "net_arch"), [64, 64])
    assert parse_assignment("name=a=b") == (("name",), "a=b")
    spec = _spec(Overrides(("agent.policy_kwargs.net_arch=[8, 8]", "agent.policy_kwargs.net_arch.1=3",
                            "budget.steps=128", "env.kwargs={}")))
    assert spec.agent.policy_kwargs.net_arch == [8, 3] and spec.budget.steps == 128


def test_seed_replaces_the_seeds_list_and_trials_sets_the_count():
    assert _spec(Overrides()).trial_seeds() == [4, 5]
    spec = _spec(Overrides(seed=3, trials=5))
    assert (spec.seed, spec.seeds, spec.trials) == (3, None, 5)
    assert len(set(spec.trial_seeds())) == 5


def test_the_input_document_is_left_as_it_was():
    document = load_text(SPEC, "spec.yaml")
    Overrides(("agent.n_steps=64",), seed=1).apply(document)
    assert document.data["agent"]["n_steps"] == 32 and document.data["seeds"] == [4, 5]


@pytest.mark.parametrize(("given", "message"), [
    ("agent.learnin_rate=3e-4", "--set agent.learnin_rate=3e-4: agent.learnin_rate: unknown field 'learnin_rate' "
                                "(did you mean 'learning_rate'?); valid fields: batch_size,"),
    ("agent.gamma=2", "--set agent.gamma=2: agent.gamma: Input should be less than or equal to 1 (given 2)"),
    ("budget.steps.x=1", "--set budget.steps.x=1: budget.steps is not a mapping or a list, so it has no 'x'"),
    ("seeds.7=1", "--set seeds.7=1: index 7 is outside the list of 2 items"),
    ("agent.n_steps", "--set agent.n_steps: expected KEY.PATH=VALUE"),
    ("agent..x=1", "--set agent..x=1: expected KEY.PATH=VALUE"),
    ("agent.n_steps=[1,", "--set agent.n_steps=[1,:1:"),
])
def test_a_bad_override_is_named_in_the_error(given, message):
    with pytest.raises(SpecError) as caught:
        _spec(Overrides((given,)))
    assert str(caught.value).startswith(message)


def test_problems_outside_the_overrides_keep_their_file_line():
    text = SPEC.replace("n_epochs: 1", "n_epochs: 0")
    with pytest.raises(SpecError) as caught:
        parse_spec(Overrides(("budget.steps=10",)).apply(load_text(text, "spec.yaml")), get_registry())
    assert str(caught.value).startswith("spec.yaml:2:49: agent.n_epochs: Input should be greater than or equal to 1")


def test_zoo_train_writes_the_overrides_into_the_resolved_spec_and_the_manifest(tmp_path, capsys):
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC)
    run = tmp_path / "run"
    assert main(["train", str(source), "--run-dir", str(run), "--set", "agent.learning_rate=0.01",
                 "--set", "budget.steps=32", "--seed", "9", "--trials", "1", "--no-progress"]) == 0
    resolved = yaml.safe_load((run / "spec.yaml").read_text())
    assert resolved["agent"]["learning_rate"] == 0.01 and resolved["budget"]["steps"] == 32
    assert (resolved["seed"], resolved["seeds"], resolved["trials"]) == (9, None, 1)
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["overrides"] == ["--set agent.learning_rate=0.01", "--set budget.steps=32", "--seed 9", "--trials 1"]
    assert (run / "spec.source.yaml").read_text() == SPEC
    assert json.loads((run / "trials/000/result.json").read_text())["steps"] == 32


def test_zoo_train_refuses_a_bad_override_before_writing_anything(tmp_path, capsys):
    source = tmp_path / "spec.yaml"
    source.write_text(SPEC)
    assert main(["train", str(source), "--runs-dir", str(tmp_path / "runs"), "--set", "agent.learnin_rate=1"]) == 2
    assert "did you mean 'learning_rate'?" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_debug_is_a_global_option_anywhere_on_the_line(tmp_path, capsys):
    missing = str(tmp_path / "missing.yaml")
    assert main(["validate", missing]) == 2
    with pytest.raises(SpecError, match="no such file"):
        main(["validate", missing, "--debug"])


def test_backend_switches_type_keeping_the_keys_every_backend_has():
    on_ray = load_text("backend: {type: ray, address: auto, workers: 3, max_retries: 1}\n", "spec.yaml")
    assert Overrides(backend="local").apply(on_ray).data["backend"] == {"workers": 3, "type": "local"}
    assert Overrides(backend="ray").apply(on_ray).data["backend"] == on_ray.data["backend"]
    local = load_text("backend: {workers: 2, torch_threads: 2}\n", "spec.yaml")
    overridden = Overrides(backend="ray", backend_fields=(("--address", "address", "ray://head:10001"),)).apply(local)
    assert overridden.data["backend"] == {"workers": 2, "torch_threads": 2, "type": "ray", "address": "ray://head:10001"}
    assert Overrides(backend="ray", backend_fields=(("--address", "address", "auto"),)).as_list() == [
        "--backend ray", "--address auto"]
