"""zoo validate: run specs, studies and plugin document kinds recognised; --build blames the block that fails."""

from __future__ import annotations

import types
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium import spaces

from zoo import (
    Agent,
    AgentEntry,
    BehaviorSpace,
    Choice,
    Coordinate,
    DocumentEntry,
    EnvEntry,
    MetaControllerEntry,
    Params,
    ZooError,
    hookimpl,
)
from zoo.cli import main
from zoo.documents import validate_file
from zoo.errors import SpecError
from zoo.registry import Registry, get_registry

EXAMPLES = Path(__file__).parents[2] / "examples"


class Fragile(Params):
    fail: bool = False


class LineEnv(gymnasium.Env):
    observation_space = spaces.Discrete(1)
    action_space = spaces.Discrete(2)

    def reset(self, *, seed=None, options=None):
        return 0, {}

    def step(self, action):
        return 0, 0.0, True, False, {}


def make_line(params: Fragile, seed):
    if params.fail:
        raise RuntimeError("the line env is broken")
    return LineEnv()


class Constant:
    def __init__(self, params: Fragile, space: BehaviorSpace, rng):
        if params.fail:
            raise ValueError("the constant controller is broken")
        self.point = np.array(space.default)

    def sample(self) -> Choice:
        return Choice(self.point)

    def update(self, choice, episode_return):
        pass

    def state_dict(self):
        return {}

    def load_state_dict(self, state):
        pass


class Probe(Agent):
    """Builds its env and meta-controller as a substrate agent does, then does nothing."""

    def __init__(self, params: Fragile, context):
        self.env = context.make_env(context.seed)
        if context.meta_controller is not None:
            context.meta_controller(BehaviorSpace((Coordinate("eps", 0.0, 1.0, 0.5),), (0.5,)), np.random.default_rng(0))
        if params.fail:
            raise KeyError("the probe agent is broken")

    steps = 0

    def learn(self, steps):
        pass

    def save(self, directory):
        pass

    def load(self, directory):
        pass


def _board(path, registry, build):
    return f"3 agents{' (built)' if build else ''}"


def _crashing(path, registry, build):
    raise AttributeError("'NoneType' object has no attribute 'rules'")


probe_plugin = types.SimpleNamespace(
    register_envs=hookimpl(lambda register: register(EnvEntry(name="line", params=Fragile, factory=make_line))),
    register_agents=hookimpl(lambda register: register(
        AgentEntry(name="probe", params=Fragile, factory=Probe, behavior_space=True))),
    register_meta_controllers=hookimpl(lambda register: register(
        MetaControllerEntry(name="constant", params=Fragile, factory=Constant))),
    register_documents=hookimpl(lambda register: [
        register(DocumentEntry(name="board", marker=("board", "agents"), validate=_board)),
        register(DocumentEntry(name="crashing", marker=("crash",), validate=_crashing))]),
)


@pytest.fixture
def registry() -> Registry:
    registry = Registry()
    assert registry.add("probes", probe_plugin)
    return registry


def spec(tmp_path, env="", agent="", meta="") -> Path:
    path = tmp_path / "spec.yaml"
    path.write_text(f"env: {{type: line{env}}}\nagent: {{type: probe{agent}}}\n"
                    f"meta_controller: {{type: constant{meta}}}\nbudget: {{steps: 10}}\n")
    return path


@pytest.mark.parametrize("where, block, name, error", [
    ("env", "env", "line", "RuntimeError: the line env is broken"),
    ("agent", "agent", "probe", "KeyError: 'the probe agent is broken'"),
    ("meta", "meta_controller", "constant", "ValueError: the constant controller is broken"),
])
def test_build_names_the_block_that_failed_and_its_plugin(tmp_path, registry, where, block, name, error):
    path = spec(tmp_path, **{where: ", fail: true"})
    assert validate_file(path, registry) == "env line, agent probe, meta-controller constant, 1 trial(s) x 10 steps"
    with pytest.raises(ZooError) as caught:
        validate_file(path, registry, build=True)
    assert str(caught.value) == f"the spec is valid but its {block} '{name}' (plugin 'probes') could not be built: {error}"


def test_build_passes_a_spec_whose_objects_build(tmp_path, registry):
    assert validate_file(spec(tmp_path), registry, build=True).endswith("1 trial(s) x 10 steps, built")


def test_a_plugin_document_kind_is_recognised_by_its_marker_keys(tmp_path, registry):
    board = tmp_path / "board.yaml"
    board.write_text("board: gohr-v1\nagents: [ppo]\nrules: [paper/clockwise]\n")
    assert validate_file(board, registry) == "board: 3 agents"
    assert validate_file(board, registry, build=True) == "board: 3 agents (built)"
    half = tmp_path / "half.yaml"
    half.write_text("board: gohr-v1\n")  # one marker key of two: read as a run spec
    with pytest.raises(SpecError, match="required field is missing"):
        validate_file(half, registry)


def test_a_crashing_document_check_is_one_line_naming_its_plugin(tmp_path, registry):
    path = tmp_path / "crash.yaml"
    path.write_text("crash: true\n")
    with pytest.raises(ZooError, match=r"^the crashing check of plugin 'probes' failed: AttributeError: "):
        validate_file(path, registry)


def test_the_shipped_study_validates_and_builds():
    registry = get_registry()
    study = EXAMPLES / "gohr-paper-section5.yaml"
    runs = "color_match, clockwise, b23_then_b01, b3_then_b1"
    assert validate_file(study, registry) == f"study: gohr-paper-section5, 4 runs: {runs}"
    assert validate_file(study, registry, build=True) == f"study: gohr-paper-section5, 4 runs: {runs}, built"


def test_a_study_run_that_cannot_be_built_is_named(tmp_path):
    study = tmp_path / "study.yaml"
    study.write_text(
        "name: s\nbase: {env: {type: gym, id: CartPole-v1}, agent: {type: gdi-i3}, budget: {steps: 1000}}\n"
        "runs:\n  fine: {}\n  wrong: {meta_controller: {type: fixed, value: [1, 2]}}\n")
    registry = get_registry()
    assert validate_file(study, registry) == "study: s, 2 runs: fine, wrong"
    with pytest.raises(ZooError, match=r"^run wrong: meta_controller.value: \[1.0, 2.0\] is not a point"):
        validate_file(study, registry, build=True)


def test_the_command_reports_every_file_and_fails_on_any(tmp_path, capsys):
    good = EXAMPLES / "cartpole-ppo.yaml"
    bad = tmp_path / "bad.yaml"
    bad.write_text("env: {type: gym, id: CartPole-v1}\nagent: {type: gdi-i3}\nmeta_controller: {type: fixed, value: [9]}\n"
                   "budget: {steps: 1000}\n")
    assert main(["validate", str(good), str(bad)]) == 0
    assert main(["validate", "--build", str(good), str(bad), str(EXAMPLES / "gohr-paper-section5.yaml")]) == 2
    out, err = capsys.readouterr()
    assert f"ok: {good} (env gym, agent ppo, 1 trial(s) x 60000 steps, built)" in out
    assert "ok: " + str(EXAMPLES / "gohr-paper-section5.yaml") + " (study: gohr-paper-section5" in out
    assert err.strip() == f"error: {bad}: meta_controller.value: [9.0] is not a point of the behavior space " \
                          "(beta1 in [0.0, 50.0], beta2 in [0.0, 50.0], eps in [0.0, 1.0])"
