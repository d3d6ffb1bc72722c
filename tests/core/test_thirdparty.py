"""A separately installed plugin package adds an env, an agent and a command, with no change here.

The package in tests/thirdparty_plugin is pip-installed into a private folder put on PYTHONPATH of
the ``zoo`` subprocesses; the venv itself is left untouched.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from zoo.metrics import read_metrics

pytestmark = pytest.mark.slow  # pip-installs the example plugin

SPEC = """\
name: corridor-q
env:
  type: corridor
  length: 6
  slip: 0.05
agent:
  type: tabular-q
  epsilon: 0.2
budget:
  steps: 20000
  checkpoint_every: 5000
  eval_episodes: 4
logging:
  tensorboard: false
seed: 1
"""


@pytest.fixture
def spec(tmp_path) -> Path:
    path = tmp_path / "corridor.yaml"
    path.write_text(SPEC)
    return path


@pytest.fixture(scope="module")
def broken_plugins(tmp_path_factory) -> Path:
    """A folder holding a distribution with two broken ``zoo`` entry points, and their modules."""
    folder = tmp_path_factory.mktemp("broken")
    info = folder / "zoo_broken-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zoo-broken\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text(
        "[zoo]\nbroken-import = zoo_broken_import\nbroken-register = zoo_broken_register\n"
    )
    (folder / "zoo_broken_import.py").write_text("raise RuntimeError('this plugin cannot be imported')\n")
    (folder / "zoo_broken_register.py").write_text(
        "from zoo import hookimpl\n\n@hookimpl\ndef register_envs(register):\n"
        "    raise ValueError('this plugin cannot register')\n"
    )
    return folder


def plugins_json(result) -> dict:
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_plugins_lists_the_installed_package(zoo_cli):
    listing = plugins_json(zoo_cli.run("plugins", "--json"))
    plugins = {row["name"]: row for row in listing["plugins"]}
    assert plugins["example"] == {
        "name": "example", "version": "0.1.0", "distribution": "zoo-example-plugin",
        "hooks": ["register_agents", "register_commands", "register_envs"],
        "provides": {"env": ["corridor"], "agent": ["tabular-q"]},
    }
    assert {"gym", "sb3"} <= set(plugins) and listing["failed"] == {}


def test_plugin_adds_a_cli_command(zoo_cli):
    result = zoo_cli.run("corridor", "--length", "5")
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "A...G"


def test_validate_accepts_the_spec_and_suggests_fixes_for_typos(zoo_cli, spec, tmp_path):
    ok = zoo_cli.run("validate", spec)
    assert ok.returncode == 0, ok.stderr
    assert "env corridor, agent tabular-q" in ok.stdout

    bad_env = tmp_path / "bad-env.yaml"
    bad_env.write_text(SPEC.replace("type: corridor", "type: coridor"))
    bad_param = tmp_path / "bad-param.yaml"
    bad_param.write_text(SPEC.replace("  length: 6", "  lenght: 6"))
    result = zoo_cli.run("validate", bad_env, bad_param)
    assert result.returncode == 2
    assert f"{bad_env}:3" in result.stderr and "unknown environment 'coridor' (did you mean 'corridor'?)" in result.stderr
    assert f"{bad_param}:4" in result.stderr and "unknown field 'lenght' (did you mean 'length'?)" in result.stderr


def test_train_runs_the_plugin_spec_to_completion(zoo_cli, spec, tmp_path):
    run = tmp_path / "run"
    result = zoo_cli.run("train", spec, "--run-dir", run, "--no-progress")
    assert result.returncode == 0, result.stderr

    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "finished"
    assert manifest["entries"] == {"env": "example", "agent": "example"}
    assert manifest["plugins"]["example"]["distribution"] == "zoo-example-plugin"

    trial = run / "trials" / "000"
    outcome = json.loads((trial / "result.json").read_text())
    assert outcome["steps"] == 20000 and len(outcome["eval_returns"]) == 4
    # the greedy policy walks to the goal (a policy that does not would score about -1)
    assert outcome["eval_mean"] > 0.8

    rows = read_metrics(trial / "metrics.jsonl")
    assert len(rows) > 100 and all(set(row) == {"step", "episode_return", "episode_length"} for row in rows)
    steps = [row["step"] for row in rows]
    assert steps == sorted(steps) and steps[-1] <= 20000
    # every step of an episode is counted once: lengths add up to the last logged step
    assert sum(row["episode_length"] for row in rows) == steps[-1]
    checkpoints = sorted(p.name for p in (trial / "checkpoints").iterdir())
    assert checkpoints[-1] == f"step-{20000:012d}"


def test_a_broken_plugin_is_reported_by_name_and_the_rest_works(zoo_cli, spec, broken_plugins):
    result = zoo_cli.run("plugins", "--json", extra_paths=[broken_plugins])
    listing = plugins_json(result)
    assert set(listing["failed"]) == {"broken-import", "broken-register"}
    assert "RuntimeError: this plugin cannot be imported" in listing["failed"]["broken-import"]
    assert "ValueError: this plugin cannot register" in listing["failed"]["broken-register"]
    assert f"warning: plugin 'broken-import' failed to import zoo_broken_import ({broken_plugins / 'zoo_broken_import.py'}:1)" \
        in result.stderr
    assert f"warning: plugin 'broken-register' failed while registering ({broken_plugins / 'zoo_broken_register.py'}:5)" \
        in result.stderr
    assert "Traceback" not in result.stderr
    debug = zoo_cli.run("--debug", "plugins", "--json", extra_paths=[broken_plugins])
    assert debug.returncode == 0 and debug.stderr.count("Traceback (most recent call last):") == 2
    assert "raise RuntimeError('this plugin cannot be imported')" in debug.stderr
    assert "raise ValueError('this plugin cannot register')" in debug.stderr
    assert {"example", "gym", "sb3"} <= {row["name"] for row in listing["plugins"]}

    valid = zoo_cli.run("validate", spec, extra_paths=[broken_plugins])
    assert valid.returncode == 0, valid.stderr
    assert "warning: plugin 'broken-import'" in valid.stderr

    unknown = spec.with_name("unknown.yaml")
    unknown.write_text(SPEC.replace("type: corridor", "type: maze"))
    result = zoo_cli.run("validate", unknown, extra_paths=[broken_plugins])
    assert result.returncode == 2
    assert "plugins that failed to load: broken-import, broken-register" in result.stderr


def test_environment_variables_restrict_plugins(zoo_cli, spec, broken_plugins):
    result = zoo_cli.run("plugins", "--json", extra_paths=[broken_plugins],
                         ZOO_DISABLE_PLUGINS="broken-import, broken-register")
    listing = plugins_json(result)
    assert listing["failed"] == {} and "warning" not in result.stderr
    everything = plugins_json(zoo_cli.run("plugins", "--json"))["plugins"]
    assert [row["name"] for row in listing["plugins"]] == [row["name"] for row in everything]
    assert {"example", "gym", "sb3"} <= {row["name"] for row in everything}

    only = plugins_json(zoo_cli.run("plugins", "--json", extra_paths=[broken_plugins], ZOO_PLUGINS="example"))
    assert [row["name"] for row in only["plugins"]] == ["catalog", "core", "example"] and only["failed"] == {}  # the essential ones too

    gym_spec = spec.with_name("gym.yaml")
    gym_spec.write_text(SPEC.replace("type: corridor\n  length: 6\n  slip: 0.05", "type: gym\n  id: FrozenLake-v1"))
    assert zoo_cli.run("validate", gym_spec).returncode == 0
    blocked = zoo_cli.run("validate", gym_spec, ZOO_DISABLE_PLUGINS="gym")
    assert blocked.returncode == 2 and "unknown environment 'gym'" in blocked.stderr
    assert zoo_cli.run("validate", gym_spec, ZOO_PLUGINS="example").returncode == 2
