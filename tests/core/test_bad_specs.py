"""A corpus of malformed specs: each gives one clear message naming the place, exit 2, nothing written."""

from __future__ import annotations

from pathlib import Path

import pytest

from zoo.cli import main

CORPUS = Path(__file__).parent / "data" / "bad-specs"

#: file -> (line, column, field path or None, text the message must contain)
EXPECTED = {
    "01-malformed-yaml.yaml": (4, 6, None, "flow sequence started at line 3: expected ',' or ']'"),
    "02-unknown-agent.yaml": (3, 3, "agent.type", "unknown agent 'ppo2' (did you mean 'ppo'?); installed: a2c, "),
    "03-unknown-env-plugin.yaml": (2, 3, "env.type", "unknown environment 'gymm' (did you mean 'gym'?)"),
    "04-unknown-agent-field.yaml": (4, 3, "agent.lerning_rate", "unknown field 'lerning_rate' (did you mean 'learning_rate'?); valid fields: batch_size,"),
    "05-wrong-type.yaml": (4, 3, "agent.learning_rate", "a learning rate is a number in (0, 1] or 'lin_<initial>' such as 'lin_3e-4' (given 'fast')"),
    "06-out-of-range.yaml": (4, 3, "agent.gamma", "Input should be less than or equal to 1 (given 1.5)"),
    "07-missing-budget.yaml": (1, 1, "budget", "required field is missing"),
    "08-missing-agent-type.yaml": (2, 1, "agent", "missing 'type': which agent? installed: a2c, "),
    "09-unknown-top-level-key.yaml": (4, 1, "trails", "unknown field 'trails' (did you mean 'trials'?)"),
    "10-unknown-gym-id.yaml": (3, 3, "env.id", "'CartPol-v1' is not a registered gymnasium id (did you mean 'CartPole-v1'?)"),
    "11-negative-steps.yaml": (4, 3, "budget.steps", "Input should be greater than 0 (given -5)"),
    "12-seeds-mismatch.yaml": (5, 1, "seeds", "2 seeds for 3 trials; give one seed per trial or none"),
    "13-alias-bomb.yaml": (2, 8, None, "aliases (*name) are not allowed in specs"),
    "14-python-tag.yaml": (2, 8, None, "python/object/apply:os.system is not allowed; a spec holds plain values"),
    "15-huge-integer.yaml": (4, 3, "budget.steps", "Input should be less than or equal to 1000000000000"),
    "16-not-a-mapping.yaml": (1, 1, None, "a spec is a mapping with env, agent and budget keys"),
    "17-empty.yaml": (None, None, None, "the document is empty"),
    "18-meta-controller-without-behavior-space.yaml": (3, 1, "meta_controller", "agent 'ppo' declares no behavior space, so it takes no meta-controller"),
    "19-duplicate-key.yaml": (3, 1, None, "duplicate key 'agent'"),
    "20-bad-literal.yaml": (4, 3, "agent.policy", "Input should be 'MlpPolicy', 'CnnPolicy' or 'MultiInputPolicy' (given 'MLPPolicy')"),
    "21-nested-unknown-field.yaml": (6, 5, "agent.policy_kwargs.activaton_fn", "(did you mean 'activation_fn'?); valid fields: activation_fn, features_extractor_class,"),
    "22-env-not-mapping.yaml": (1, 1, "env", "expected a mapping with a 'type' key naming the environment"),
    "23-bad-backend.yaml": (5, 3, "backend.type", "Input should be 'local' or 'ray' (given 'slurm')"),
    "24-bad-list-item.yaml": (5, 20, "agent.policy_kwargs.net_arch.1", "Input should be a valid integer"),
    "25-bad-name.yaml": (1, 1, "name", "a run name is 1 to 100 letters, digits"),
    "26-deep-nesting.yaml": (1, 42, None, "nested deeper than 40 levels"),
    "27-tabs.yaml": (2, 1, None, "found character '\\t' that cannot start any token"),
    "28-control-character.yaml": (4, 20, None, "control character U+0007 is not allowed in a spec"),
    "29-boolean-steps.yaml": (3, 10, "budget.steps", "expected a whole number, not a boolean (given true)"),
    "30-number-for-boolean.yaml": (2, 20, "agent.normalize_advantage", "expected true or false (given 0)"),
    "31-boolean-for-number.yaml": (2, 20, "agent.gamma", "expected a number, not a boolean (given true)"),
    "32-boolean-in-nested-list.yaml": (2, 33, "agent.network.hidden", "item 1: expected a whole number, not a boolean (given true)"),
    "33-number-for-nested-boolean.yaml": (4, 15, "agent.optimizer.decay", "expected true or false (given 1.0)"),
    "34-boolean-for-number-or-schedule.yaml": (2, 20, "agent.learning_rate", "expected a number, not a boolean (given true)"),
    "35-boolean-in-env-board.yaml": (1, 52, "env.board.max_objects", "expected a whole number, not a boolean (given false)"),
}


def test_corpus_is_complete():
    assert sorted(p.name for p in CORPUS.glob("*.yaml")) == sorted(EXPECTED)
    assert len(EXPECTED) >= 20


@pytest.mark.parametrize("name", sorted(EXPECTED))
@pytest.mark.parametrize("command", ["validate", "train"])
def test_bad_spec_gives_one_clear_message(name, command, capsys, tmp_path):
    line, column, field, text = EXPECTED[name]
    path = CORPUS / name
    runs = tmp_path / "runs"
    code = main([command, str(path), "--runs-dir", str(runs)] if command == "train" else [command, str(path)])
    err = capsys.readouterr().err
    assert code == 2
    place = str(path) + "".join(f":{n}" for n in (line, column) if n is not None)
    expected = f"error: {place}: " + (f"{field}: " if field else "")
    assert err.startswith(expected), err
    assert text in err, err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1
    assert not runs.exists() or not any(runs.iterdir())


def test_missing_spec_file(capsys, tmp_path):
    assert main(["validate", str(tmp_path / "nope.yaml")]) == 2
    assert capsys.readouterr().err.strip() == f"error: {tmp_path / 'nope.yaml'}: no such file"


def test_several_problems_are_all_reported(capsys, tmp_path):
    spec = tmp_path / "two.yaml"
    spec.write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: ppo, n_steps: 0, gamma: 2}\nbudget: {steps: 10}\n")
    assert main(["validate", str(spec)]) == 2
    err = capsys.readouterr().err
    assert f"{spec}:2:20: agent.n_steps: Input should be greater than or equal to 1 (given 0)" in err
    assert f"{spec}:2:32: agent.gamma: Input should be less than or equal to 1 (given 2)" in err


def test_existing_run_folder_is_not_touched(capsys, tmp_path):
    spec = tmp_path / "ok.yaml"
    spec.write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: ppo}\nbudget: {steps: 10}\n")
    target = tmp_path / "taken"
    target.mkdir()
    (target / "keep.txt").write_text("mine")
    assert main(["train", str(spec), "--run-dir", str(target), "--no-progress"]) == 2
    assert "run folder already exists" in capsys.readouterr().err
    assert [p.name for p in target.iterdir()] == ["keep.txt"]


def test_debug_shows_the_traceback(tmp_path):
    from zoo.errors import SpecError

    with pytest.raises(SpecError):
        main(["--debug", "validate", str(CORPUS / "02-unknown-agent.yaml")])
