"""Every shipped example spec of a substrate agent (GDI-I3/H3, DiCE, LBC), and every ablation of each
agent, trains to the end through the run API (prepare_run + execute_run, what `zoo train` does) and
ends with status "finished".

Only the sizes are overridden (2 actors, sequences 2 + 5, batch 2, tiny networks, a few hundred
steps) so that each run takes about a second; env blocks, presets and meta-controllers stay as shipped.
"""

from pathlib import Path

import pytest
import yaml

from zoo import execute_run, prepare_run
from zoo.registry import get_registry

pytestmark = pytest.mark.slow  # every shipped spec trained end to end, about 2 minutes

EXAMPLES = Path(__file__).parents[3] / "examples"
SUBSTRATE_AGENTS = ("gdi-i3", "gdi-h3", "dice", "lbc")
SPECS = sorted(p.name for p in EXAMPLES.glob("*.yaml")
               if yaml.safe_load(p.read_text()).get("agent", {}).get("type") in SUBSTRATE_AGENTS)
SIZES = {"num_envs": 2, "burn_in": 2, "length": 5, "batch": 2, "pull_every": 4, "push_every": 2}
NETWORKS = {"gohr": {"hidden": [16], "lstm": 8},
            "atari": {"embedding": 16, "lstm": 8, "impala_channels": [4], "impala_blocks": 0},
            "minatar": {"embedding": 16, "lstm": 8}, "gym": {"hidden": [16], "lstm": 8}}
STEPS = {"gohr": 160, "atari": 40, "minatar": 160, "gym": 160}
ABLATIONS = {"gdi-i3": ["fixed_selection", "random_selection", "boltzmann_selection", "eps_greedy_selection"],
             "dice": ["baseline", "random", "entropy"],
             "lbc": ["reduce_H", "reduce_H_and_Psi", "random_selection", "no_ucb", "no_replacement"]}


def shrunk(name: str, ablation: str | None = None) -> dict:
    spec = yaml.safe_load((EXAMPLES / name).read_text())
    env = spec["env"]["type"]
    spec["agent"].update(SIZES, network={**spec["agent"].get("network", {}), **NETWORKS[env]})
    if ablation is not None:
        spec["agent"]["ablation"] = ablation
        spec.pop("meta_controller", None)  # the fixed-controller ablations refuse one
    spec["budget"] = {"steps": STEPS[env]}
    spec.pop("backend", None)  # here every spec trains locally; tests/learner/test_ray_substrate.py covers Ray
    spec["logging"] = {"tensorboard": False, "progress": False}
    return spec


def train(spec: dict, tmp_path: Path) -> str:
    source = tmp_path / "spec.yaml"
    source.write_text(yaml.safe_dump(spec))
    registry = get_registry()
    folder = prepare_run(source, registry, tmp_path / "runs")
    status = execute_run(folder, registry, progress=False)
    assert folder.manifest()["status"] == status
    return status


def test_every_substrate_example_is_covered():
    worlds = ("gohr", "atari", "minatar")
    assert {f"{world}-{agent}.yaml" for world in worlds for agent in SUBSTRATE_AGENTS} <= set(SPECS)
    assert {"gohr-dice-baseline.yaml", "gohr-lbc-random.yaml", "cartpole-gdi-i3.yaml"} <= set(SPECS)


@pytest.mark.parametrize("name", SPECS)
def test_shipped_spec_finishes(name, tmp_path):
    assert train(shrunk(name), tmp_path) == "finished"


@pytest.mark.parametrize("agent,ablation", [(a, x) for a, xs in ABLATIONS.items() for x in xs])
def test_ablation_of_shipped_spec_finishes(agent, ablation, tmp_path):
    spec = shrunk(f"gohr-{agent}.yaml", ablation)
    assert spec["agent"]["type"] == agent
    assert train(spec, tmp_path) == "finished"
