"""The substrate's search space and the tuning files of benchmarks/tuning: every value of the space (and of a
file's own additions) is valid for each agent's tuning spec, and ``zoo validate`` checks a named space's paths against the spec (it once checked
only the file's own ``space``)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from zoo_tune.tune import Categorical, check_tuning, registered_space

from zoo import SpecError
from zoo.overrides import Overrides
from zoo.registry import get_registry
from zoo.spec import parse_spec
from zoo.yamlio import load_file

TUNING = Path(__file__).resolve().parents[3] / "benchmarks" / "tuning"
FILES = sorted(TUNING.glob("*.yaml"))


def test_there_is_a_tuning_file_per_substrate_agent_and_world():
    assert [f.stem for f in FILES] == [f"{world}-{agent}" for world in ("gohr", "minatar")
                                       for agent in ("dice", "gdi-h3", "gdi-i3", "lbc")]


@pytest.mark.parametrize("path", FILES, ids=lambda p: p.stem)
def test_every_value_of_the_substrate_space_is_valid_in_each_tuning_spec(path):
    registry = get_registry()
    tuning = yaml.safe_load(path.read_text())
    own = {key: Categorical(**dist) for key, dist in tuning.get("space", {}).items()}
    space = {**registered_space("substrate", registry), **own}
    spec_path = TUNING / tuning["spec"]
    assert check_tuning(path, registry, build=False).endswith(f"over {len(space)} values of specs/{spec_path.name}")
    for key, dist in space.items():
        for value in dist.choices if isinstance(dist, Categorical) else [dist.low, dist.high]:
            spec = parse_spec(Overrides((f"{key}={json.dumps(value)}",)).apply(load_file(spec_path)), registry)
            node = spec.model_dump()
            for part in key.split("."):
                node = node[part]
            assert (list(node) if isinstance(node, tuple) else node) == value, key


def test_validate_checks_a_named_space_against_the_spec(tmp_path):
    (tmp_path / "spec.yaml").write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: a2c}\nbudget: {steps: 64}\n")
    (tmp_path / "tune.yaml").write_text("spec: spec.yaml\nsearch_space: substrate\n")  # an a2c spec has no agent.batch
    with pytest.raises(SpecError, match="agent"):
        check_tuning(tmp_path / "tune.yaml", get_registry(), build=False)
