"""``zoo check``: it passes on sound plugins and fails, naming the check, on broken ones."""

from __future__ import annotations

import math
import random
import types
from pathlib import Path

import numpy as np
import pytest
from pydantic import Field
from zoo_check.checks import run_checks
from zoo_check.testing import check_plugin
from zoo_testing import HiddenSlips
from zoo_tune.search_spaces import SearchSpaceEntry

import zoo.registry
from zoo import AgentEntry, EnvEntry, MetaControllerEntry, Params, hookimpl, seeded_env
from zoo.cli import main
from zoo.registry import Registry

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def example(monkeypatch):
    """The example third-party plugin (tests/thirdparty_plugin), importable in this process."""
    monkeypatch.syspath_prepend(str(ROOT / "tests" / "thirdparty_plugin" / "src"))
    import zoo_example.plugin

    return zoo_example


def registry_with(name: str, plugin) -> Registry:
    registry = Registry()
    registry.load_entry_points()
    registry.add(name, plugin)
    return registry


def failures(capsys, target: str, registry: Registry, monkeypatch) -> tuple[int, list[str]]:
    """The exit status of ``zoo check TARGET`` and the lines of its failed checks."""
    monkeypatch.setattr(zoo.registry, "_default", registry)
    code = main(["check", target])
    return code, [line for line in capsys.readouterr().out.splitlines() if line.startswith("FAIL")]


def env_plugin(example, env_class) -> types.SimpleNamespace:
    params = example.corridor.CorridorParams
    return types.SimpleNamespace(register_envs=hookimpl(lambda register: register(EnvEntry(
        name="bad-corridor", params=params, factory=lambda p, seed: env_class(p)))))


@pytest.mark.slow  # trains the example agent four times, about 10 seconds
def test_the_example_plugin_passes(example):
    results = check_plugin("example", registry_with("example", example.plugin))
    assert {(r.subject, r.check) for r in results if r.status == "PASS"} >= {
        ("environment example:corridor", "gymnasium check_env"),
        ("environment example:corridor", "same seed, same episode"),
        ("agent example:tabular-q", "same seed, same numbers"),
        ("agent example:tabular-q", "save/load round trip (stopped half-way, resumed)"),
        ("command example:corridor", "registered"),
    }


def test_cheap_built_in_plugins_pass(capsys, monkeypatch):
    registry = Registry()
    registry.load_entry_points()
    for target in ("gohr", "minatar"):  # envs and rule sets; plugins that train: test_every_built_in_plugin_passes
        code, failed = failures(capsys, target, registry, monkeypatch)
        assert (code, failed) == (0, [])


def test_a_non_deterministic_env_fails_the_seeding_check(example, capsys, monkeypatch):
    class Unseeded(example.corridor.CorridorEnv):
        def step(self, action):
            return super().step(random.randrange(2))  # the global generator: no seed reaches it

    code, failed = failures(capsys, "mini", registry_with("mini", env_plugin(example, Unseeded)), monkeypatch)
    assert code == 1
    checks = {line.partition(" (")[0] for line in failed}
    assert "FAIL environment mini:bad-corridor: same seed, same episode" in checks
    assert checks <= {"FAIL environment mini:bad-corridor: same seed, same episode",  # gymnasium's checker steps
                      "FAIL environment mini:bad-corridor: gymnasium check_env",  # once, so it sees it by chance
                      "FAIL environment mini:bad-corridor: an unseeded episode replays from the saved state"}


def test_an_env_whose_saved_state_misses_its_randomness_fails_the_replay_check(example, capsys, monkeypatch):
    class Hidden(HiddenSlips, example.corridor.CorridorEnv):
        pass

    class Carried(Hidden):
        def get_state(self):
            return {**super().get_state(), "slips": [x.tolist() if hasattr(x, "tolist") else x for x in self.slips.get_state()]}

        def set_state(self, state):
            super().set_state(state)
            self.slips.set_state(tuple(np.array(x, np.uint32) if isinstance(x, list) else x for x in state["slips"]))

    code, failed = failures(capsys, "mini", registry_with("mini", env_plugin(example, Hidden)), monkeypatch)
    assert code == 1 and [line.partition(" (")[0] for line in failed] == [
        "FAIL environment mini:bad-corridor: an unseeded episode replays from the saved state"]
    assert "the env draws from a random state that is not saved; give it get_state/set_state" in failed[0]
    assert failures(capsys, "mini", registry_with("mini", env_plugin(example, Carried)), monkeypatch) == (0, [])


def test_nan_rewards_fail_the_output_check(example, capsys, monkeypatch):
    class NanReward(example.corridor.CorridorEnv):
        def step(self, action):
            observation, reward, terminated, truncated, info = super().step(action)
            return observation, math.nan if self.position == 1 else reward, terminated, truncated, info

    code, failed = failures(capsys, "mini", registry_with("mini", env_plugin(example, NanReward)), monkeypatch)
    assert code == 1
    assert any(line.startswith("FAIL environment mini:bad-corridor: finite rewards, observations in the space (step")
               and "the reward nan is not a finite number" in line for line in failed)


def test_an_agent_claiming_exact_resume_that_is_not_fails_it(example, capsys, monkeypatch):
    class Forgetful(example.qlearning.QLearningAgent):
        exact_resume = True

        def load(self, directory):
            super().load(directory)
            self.rng = np.random.default_rng(12345)  # its exploration is not the one it saved

    plugin = types.SimpleNamespace(
        register_envs=hookimpl(lambda register: register(EnvEntry(
            name="corridor", params=example.corridor.CorridorParams, factory=example.corridor.make_corridor))),
        register_agents=hookimpl(lambda register: register(AgentEntry(
            name="forgetful-q", params=example.qlearning.QLearningParams, factory=Forgetful))))
    code, failed = failures(capsys, "mini:forgetful-q", registry_with("mini", plugin), monkeypatch)
    assert code == 1
    assert len(failed) == 1
    assert failed[0].startswith("FAIL agent mini:forgetful-q: exact resume (the resumed run wrote other metrics "
                                "than the first, from row ")


def registry_with_forgetful() -> Registry:
    """The installed plugins and `mini`, whose meta-controller `forgetful` keeps a generator of its own and restores
    nothing: resumed, its choices are not those of an uninterrupted run."""
    registry = Registry()
    registry.load_entry_points()
    good = registry.get("meta_controller", "uniform")

    def forgetful(params, space, rng):
        control = good.factory(params, space, np.random.default_rng(int(rng.integers(2**32))))
        control.load_state_dict = lambda state: None
        return control

    registry.add("mini", types.SimpleNamespace(register_meta_controllers=hookimpl(lambda register: register(
        MetaControllerEntry(name="forgetful", params=good.params, factory=forgetful)))))
    return registry


def test_a_meta_controller_that_forgets_its_generator_fails_the_state_check(capsys, monkeypatch):
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "gdi,lbc")  # on its own only (the runs under them: the test below)
    code, failed = failures(capsys, "mini", registry_with_forgetful(), monkeypatch)
    assert code == 1
    assert [line.partition(" (")[0] for line in failed] == [
        "FAIL meta-controller mini:forgetful: state_dict restores its future choices"]


@pytest.mark.slow  # gdi-i3 and lbc trained twice each, about 5 seconds
def test_a_meta_controller_that_forgets_its_generator_fails_under_gdi_and_lbc(capsys, monkeypatch):
    """The substrate agents claim exact resume: driven by it, a resumed run writes other metrics."""
    code, failed = failures(capsys, "mini", registry_with_forgetful(), monkeypatch)
    assert code == 1
    assert [line.partition(" (")[0] for line in failed] == [
        "FAIL meta-controller mini:forgetful: state_dict restores its future choices",
        "FAIL meta-controller mini:forgetful: drives gdi-i3",
        "FAIL meta-controller mini:forgetful: drives lbc"]
    assert all("(the resumed run wrote other metrics than the first, from row" in line for line in failed[1:])


@pytest.mark.parametrize(("mode", "picture", "failed"), [
    ("rgb_array", (4, 8, 3), []),
    ("rgb_array", (4, 8), ["FAIL environment mini:bad-corridor: render mode rgb_array "
                           "(render() after reset returned an array of shape (4, 8), not (height, width, 3))"]),
    ("rgb_array_list", (4, 8, 3), []),
    ("rgb_array_list", (4, 8), ["FAIL environment mini:bad-corridor: render mode rgb_array_list "
                                "(render() after reset returned a list holding an array of shape (4, 8), not (height, width, 3))"]),
])
def test_each_render_mode_it_claims_is_checked(mode, picture, failed, example, capsys, monkeypatch):
    class Pictured(example.corridor.CorridorEnv):
        metadata = {"render_modes": ["human", "ansi", mode]}

        def render(self):
            frame = np.zeros(picture, dtype=np.uint8)
            if self.render_mode == mode:
                return frame if mode == "rgb_array" else [frame, frame]
            return super().render()  # ansi: the corridor as text

    code, lines = failures(capsys, "mini", registry_with("mini", env_plugin(example, Pictured)), monkeypatch)
    assert (code, lines) == (1 if failed else 0, failed)


class LengthParams(Params):
    length: int = Field(ge=2, description="cells (required)")


def needy_plugin(package, built: list, **declared) -> types.SimpleNamespace:
    """A plugin whose env's params have a required field; `built` collects the length of every env it builds."""
    def factory(params, seed):
        built.append(params.length)
        return package.corridor.CorridorEnv(package.corridor.CorridorParams(length=params.length))

    return types.SimpleNamespace(register_envs=hookimpl(lambda register: register(EnvEntry(
        name="needy", params=LengthParams, factory=factory, description="a corridor; no length, no corridor",
        **declared))))


@pytest.mark.parametrize(("declared", "status", "reason"), [
    ({}, "SKIP", "its params need values (length) that no check can guess; declare them with example={...} on the entry"),
    ({"example": None}, "SKIP", "it declares no example (example=None): a corridor; no length, no corridor"),
    ({"example": {"length": 1}}, "FAIL", "length: Input should be greater than or equal to 2"),
])
def test_an_entry_without_a_usable_example_is_skipped_or_failed_saying_why(declared, status, reason, example):
    built = []
    results = list(run_checks("mini", registry_with("mini", needy_plugin(example, built, **declared))))
    assert [(r.status, r.reason) for r in results] == [(status, reason)]
    assert built == []


def test_an_env_is_checked_with_its_example(example):
    built = []
    results = check_plugin("mini", registry_with("mini", needy_plugin(example, built, example={"length": 5})))
    assert {r.check for r in results if r.status == "PASS"} == {
        "gymnasium check_env", "same seed, same episode", "an unseeded episode replays from the saved state",
        "finite rewards, observations in the space"}
    assert built and set(built) == {5}


def test_an_agent_trains_on_its_example_env(example):
    """An agent that plays only envs with action masks, though it builds on any, as SB3's maskable-ppo: its
    plugin's first env has none, its example_env has them."""
    class Masked(example.corridor.CorridorEnv):
        def action_masks(self):
            return np.array([self.position > 0, True])

    class MaskingQ(example.qlearning.QLearningAgent):
        def learn(self, steps):
            assert hasattr(self.env, "action_masks"), "this agent plays only envs with action masks"
            super().learn(steps)

    params = example.corridor.CorridorParams
    plugin = types.SimpleNamespace(
        register_envs=hookimpl(lambda register: [register(EnvEntry(
            name=name, params=params, factory=lambda p, seed, env=env: seeded_env(env(p), seed))) for name, env in
            (("corridor", example.corridor.CorridorEnv), ("masked", Masked))]),
        register_agents=hookimpl(lambda register: register(AgentEntry(
            name="masking-q", params=example.qlearning.QLearningParams, factory=MaskingQ,
            example={"epsilon": 0.3}, example_env={"type": "mini:masked", "length": 5}))))
    results = check_plugin("mini:masking-q", registry_with("mini", plugin))
    assert ("PASS", "trains 300 steps on mini:masked 5") in {(r.status, r.check) for r in results}
    assert [r.check for r in results if r.status == "SKIP"] == ["exact resume"]  # the example agent claims none


def test_without_the_substrate_agents_a_meta_controller_is_checked_on_its_own(monkeypatch):
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "gdi,lbc")
    registry = Registry()
    registry.load_entry_points()
    results = list(run_checks("bandits:ucb1", registry))
    assert [(r.status, r.check, r.reason) for r in results if r.check.startswith("drives")] == [
        ("SKIP", "drives gdi-i3", "the agent gdi:gdi-i3 is not installed (its plugin is not loaded)"),
        ("SKIP", "drives lbc", "the agent lbc:lbc is not installed (its plugin is not loaded)")]
    assert all(r.status == "PASS" for r in results if not r.check.startswith("drives"))


#: the skips of built-in entries that their plugins declare: (subject, check) -> reason
DECLARED_SKIPS = {
    ("agent gohr:human", "contract"): "it declares no example (example=None): people's recorded play (a 'zoo gohr "
                                      "serve' store) for leaderboards and reports; cannot be trained",
    **{(f"agent dqn:{name}", "evaluation"): "the agent has no evaluation mode: it keeps Agent.evaluate"
       for name in ("gohr-linear-dqn", "gohr-mlp-dqn")},
    **{(f"agent {name}", "exact resume"): "the agent does not claim exact_resume"
       for name in ("atari:ale-baseline", "gohr-study:random-legal")},
}


@pytest.mark.slow  # every built-in plugin checked, about 2 minutes
def test_every_built_in_plugin_passes():
    """No check fails, and every skip is a kind of entry the zoo has no checks for or one its plugin declares."""
    registry = Registry()
    registry.load_entry_points()
    skips = {}
    for plugin in sorted(name for name, info in registry.plugins.items() if info.builtin):
        for result in check_plugin(plugin, registry):  # raises, listing the failed checks
            if result.status == "SKIP" and not result.reason.startswith("the zoo has no checks for "):
                skips[(result.subject, result.check)] = result.reason
    assert skips == DECLARED_SKIPS


def test_an_agent_whose_example_env_is_not_installed_is_skipped_saying_so(monkeypatch):
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "gohr,gohr-study")  # gohr-study builds on gohr
    registry = Registry()
    registry.load_entry_points()
    assert [(r.status, r.check, r.reason) for r in run_checks("dqn:gohr-mlp-dqn", registry)] == [
        ("SKIP", "contract", "the env of its example_env, gohr, is not installed (its plugin is not loaded)")]


@pytest.mark.parametrize(("report", "failed"), [
    (lambda runs, out: [], None),
    (None, "its report is not callable"),
])
def test_a_reporter_is_checked_for_its_envs_and_its_report(report, failed, capsys, monkeypatch):
    from zoo_report.reporters import ReporterEntry

    plugin = types.SimpleNamespace(register_reporters=hookimpl(lambda register: register(
        ReporterEntry(name="gym-report", envs=("gym",), report=report))))
    code, failed_lines = failures(capsys, "gym-report", registry_with("mine", plugin), monkeypatch)
    assert (code, failed_lines) == ((0, []) if failed is None else (1, [
        f"FAIL reporter mine:gym-report: reports on registered envs ({failed})"]))


@pytest.mark.parametrize("text, reason", [
    ("agent.learning_rate: {type: float, low: 1.0e-4, high: 1.0e-2, log: true}\n", None),
    ("agent.learning_rate: {type: float, low: 1.0e-4}\n", "agent.learning_rate.high"),
    ("agent.n_steps: {type: categorical, choices: []}\n", "agent.n_steps.choices"),
    ("{}\n", "holds no distribution"),
])
def test_a_search_space_passes_only_when_its_distributions_load(tmp_path, text, reason):
    (tmp_path / "space.yaml").write_text(text)
    registry = registry_with("spaces", types.SimpleNamespace(register_search_spaces=hookimpl(
        lambda register: register(SearchSpaceEntry(name="mine", path=tmp_path / "space.yaml")))))
    [result] = run_checks("spaces:mine", registry)
    assert (result.status, result.check) == ("PASS" if reason is None else "FAIL", "its distributions load")
    assert reason is None or reason in result.reason
