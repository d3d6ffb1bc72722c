"""An installed plugin with bad entries, a clash with `ppo` that loads first by name, and a misspelled hook.

tests/thirdparty_hostile is pip-installed into a private folder on the PYTHONPATH of the ``zoo``
subprocesses. Each of its problems gets one warning naming the plugin, the entry and the reason;
its good entry loads; every shipped spec still validates; `ppo` stays SB3's PPO and trains.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # pip-installs the hostile plugin

ROOT = Path(__file__).parents[2]
PLUGIN = "aaa-hostile"
WARNINGS = [
    f"warning: plugin '{PLUGIN}': function 'register_env' is marked with @zoo.hookimpl but is no zoo hook "
    "(did you mean 'register_envs'?), so the zoo never calls it",
    f"warning: plugin '{PLUGIN}': agent 'dataclass-agent' refused: params must be a pydantic model class "
    "(derive it from zoo.Params), got dataclass DataclassParams; the plugin's other entries still load",
    f"warning: plugin '{PLUGIN}': agent 'bad-default-agent' refused: the default of 'learning_rate' is invalid: "
    "Input should be less than or equal to 1; the plugin's other entries still load",
    f"warning: plugin '{PLUGIN}': agent 'callable-agent' refused: params have no JSON Schema (field 'schedule' of "
    "type Callable); use JSON-ready types; the plugin's other entries still load",
    f"warning: plugin '{PLUGIN}' registers agent 'ppo', already registered by built-in plugin 'sb3'; "
    f"it answers to '{PLUGIN}:ppo' only",
]


@pytest.fixture(scope="module")
def zoo(pip_install, zoo_cli_with, tmp_path_factory):
    site = pip_install(ROOT / "tests" / "thirdparty_hostile", tmp_path_factory.mktemp("hostile") / "site")
    return zoo_cli_with(site)


def test_each_problem_gets_its_warning_and_the_good_entry_loads(zoo):
    result = zoo.run("plugins", "--json")
    assert result.returncode == 0, result.stderr
    assert result.stderr.splitlines() == WARNINGS
    listing = json.loads(result.stdout)
    hostile = next(row for row in listing["plugins"] if row["name"] == PLUGIN)
    # its 'ppo' is kept under its qualified name; the bare name stays sb3's
    assert hostile["provides"] == {"agent": [f"{PLUGIN}:ppo", "hostile-ok"]} and hostile["hooks"] == ["register_agents"]
    sb3 = next(row for row in listing["plugins"] if row["name"] == "sb3")
    assert "ppo" in sb3["provides"]["agent"] and listing["failed"] == {}


def test_every_shipped_spec_validates_and_ppo_is_sb3s(zoo, tmp_path):
    examples = sorted(str(path) for path in (ROOT / "examples").glob("*.yaml"))
    assert len(examples) > 20
    result = zoo.run("validate", *examples, timeout=300)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("ok: ") == len(examples)

    listing = zoo.run("list", "agent").stdout
    assert next(line for line in listing.splitlines() if line.split()[:1] == ["ppo"]).endswith("[sb3]")
    schema = json.loads(zoo.run("schema").stdout)
    assert "ppo" in json.dumps(schema) and "dataclass-agent" not in json.dumps(schema)

    spec = tmp_path / "ppo.yaml"
    spec.write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: ppo, n_steps: 64, n_envs: 2}\n"
                    "budget: {steps: 256}\nlogging: {tensorboard: false}\n")
    run = tmp_path / "run"
    result = zoo.run("train", spec, "--run-dir", run, "--no-progress", timeout=300)
    assert result.returncode == 0, result.stderr
    manifest = json.loads((run / "run.json").read_text())
    assert manifest["status"] == "finished" and manifest["entries"]["agent"] == "sb3"
    assert manifest["plugins"]["sb3"]["distribution"] == "zoo-rl"
