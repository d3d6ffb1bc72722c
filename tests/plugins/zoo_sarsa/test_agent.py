"""The sarsa agent end to end: learning on a toy task, GOHR with the paper's features, Atari with BASS."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import gymnasium
import numpy as np
import pytest
from zoo_report.report import report
from zoo_sarsa.agent import SarsaAgent, SarsaParams
from zoo_sarsa.feature_maps import FeatureEntry

from zoo import NoParams, execute_run, hookimpl, prepare_run
from zoo.agent import TrialContext
from zoo.metrics import MetricLogger
from zoo.registry import get_registry
from zoo.store import RunFolder


class Corridor(gymnasium.Env):
    """Walk right from cell 0 to cell 7 (reward 1); every step costs nothing; 40 steps at most."""

    action_space = gymnasium.spaces.Discrete(2)
    observation_space = gymnasium.spaces.Discrete(8)

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.cell, self.t = 0, 0
        return self.cell, {}

    def step(self, action):
        self.cell = max(0, self.cell + (1 if action == 1 else -1))
        self.t += 1
        done = self.cell == 7
        return self.cell, float(done), done, self.t >= 40 and not done, {}


class OneHotCell:
    per_action = False
    size = 8

    def active(self, env):
        return np.array([env.unwrapped.cell])


class ToyFeatures:
    @hookimpl
    def register_features(register):
        register(FeatureEntry(name="test-one-hot-cell", params=NoParams, factory=lambda params, env: OneHotCell()))


@pytest.fixture(scope="module")
def registry():
    registry = get_registry()
    if "test-one-hot-cell" not in registry.entries["feature"]:
        registry.add("test-toy-features", ToyFeatures)
    return registry


def agent(tmp_path, registry, **overrides) -> SarsaAgent:
    params = SarsaParams.model_validate({"features": {"type": "test-one-hot-cell"}, "alpha": 0.5, "gamma": 0.95,
                                         "lam": 0.8, "epsilon": 0.1, "dtype": "float64", **overrides})
    context = TrialContext(seed=1, trial=0, directory=tmp_path, env_params=None, make_env=lambda seed: Corridor(),
                           logger=MetricLogger(tmp_path), budget=SimpleNamespace(unit="episodes"))
    return SarsaAgent(params, context)


def test_sarsa_learns_the_corridor_and_beats_random(tmp_path, registry):
    sarsa = agent(tmp_path, registry)
    sarsa.learn_episodes(60)
    sarsa.context.logger.flush()
    lengths = [row["episode_length"] for row in map(json.loads, (tmp_path / "metrics.jsonl").read_text().splitlines())]
    assert np.mean(lengths[-10:]) < 10 < np.mean(lengths[:5])  # 7 steps is optimal; random walks take ~40
    assert np.mean(sarsa.evaluate(20, seed=5)) > 0.9


def test_reward_normalisation_by_the_first_nonzero_reward(tmp_path, registry):
    sarsa = agent(tmp_path, registry)
    assert [sarsa._reward(r) for r in (0.0, 0.0, 25.0, 50.0, -100.0)] == [0, 0, 1, 2, -4]
    assert agent(tmp_path / "raw", registry, reward_norm="none")._reward(25.0) == 25.0


def test_checkpoint_round_trip_resumes_exactly(tmp_path, registry):
    whole = agent(tmp_path / "whole", registry)
    whole.learn_episodes(20)
    first = agent(tmp_path / "first", registry)
    first.learn_episodes(12)
    first.save(tmp_path)
    resumed = agent(tmp_path / "resumed", registry)
    resumed.load(tmp_path)
    resumed.learn_episodes(8)
    assert resumed.steps == whole.steps and np.array_equal(resumed.learner.weights(), whole.learner.weights())


def test_unknown_feature_map_is_a_clear_error(registry):
    with pytest.raises(ValueError, match="unknown feature map 'bas' \\(did you mean 'bass'"):
        SarsaParams.model_validate({"features": {"type": "bas"}})
    with pytest.raises(ValueError, match="feature map 'bass': cols"):
        SarsaParams.model_validate({"features": {"type": "bass", "cols": 0}})


def _train(tmp_path: Path, spec_text: str) -> RunFolder:
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text)
    registry = get_registry()
    folder = prepare_run(spec, registry, tmp_path / "runs")
    assert execute_run(folder, registry, progress=False) == "finished"
    return folder


def test_a_spec_trains_sarsa_on_a_gohr_rule_with_the_papers_features(tmp_path):
    text = (Path(__file__).parents[3] / "examples" / "gohr-sarsa.yaml").read_text()
    folder = _train(tmp_path, text.replace("episodes: 200", "episodes: 60").replace("eval_episodes: 10", "eval_episodes: 3"))
    rows = [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]
    returns = [row["episode_return"] for row in rows]
    assert len(returns) == 60 and np.mean(returns[-10:]) > np.mean(returns[:10]) + 20


ATARI_SPEC = """
name: sarsa-bass-freeway
env: {type: atari, game: Freeway, protocol: {name: ale2013, max_episode_frames: 1500}}
agent: {type: sarsa, features: {type: bass, background_frames: 300}}
budget: {episodes: 2, eval_episodes: 1}
trials: 2
logging: {tensorboard: false, progress: false}
"""


@pytest.mark.slow  # about 3 s: trains on an Atari ROM and reports
def test_a_spec_trains_sarsa_bass_on_atari_and_the_report_shows_hns(tmp_path):
    folder = _train(tmp_path, ATARI_SPEC)
    spec = (folder.path / "spec.yaml").read_text()
    for setting in ("frame_skip: 5", "max_pool: false", "sticky_actions: 0.0", "noop_max: 0",
                    "life_loss_terminal: false", "reward_clip: false", "max_episode_frames: 1500",
                    "full_action_space: true", "frame_stack: 1"):
        assert setting in spec
    written = report(get_registry(), [folder], tmp_path / "report")
    text = (tmp_path / "report" / "report.md").read_text()
    assert "HNS" in text and "ale2013 (max_episode_frames=1500)" in text and "sarsa/bass" in text
    summary = json.loads((tmp_path / "report" / "summary.json").read_text())
    row = summary["runs"][0]
    assert row["game"] == "freeway" and row["source"] == "eval" and len(row["trial_scores"]) == 2
    assert row["hns"] == pytest.approx((row["score"] - 0.0) / (29.6 - 0.0))
    assert any(path.suffix == ".png" for path in written)


def test_each_episode_of_sarsa_with_disco_starts_from_a_fresh_previous_screen(tmp_path):
    """The agent resets DISCO at every env reset: episode 2's first screen reads as in a fresh extractor."""
    from zoo_atari.synthetic_env import SyntheticAtariEnv
    from zoo_sarsa.disco import DiscoFeatures

    params = SarsaParams.model_validate({"features": {"type": "disco", "preprocessing_frames": 400}})
    context = TrialContext(seed=3, trial=0, directory=tmp_path, env_params=None,
                           make_env=lambda seed: SyntheticAtariEnv("catch"),
                           logger=MetricLogger(tmp_path), budget=SimpleNamespace(unit="episodes"))
    sarsa = SarsaAgent(params, context)
    disco = sarsa.features
    screens, read = [], disco.from_screen
    disco.from_screen = lambda screen: screens.append((screen.copy(), read(screen))) or screens[-1][1]
    sarsa.learn_episodes(1)
    last, second_starts_at = screens[-1][0], len(screens)
    sarsa.learn_episodes(1)
    first, features = screens[second_starts_at]
    classes = [[key for key, c in disco.class_of.items() if c == k] for k in range(disco.classes)]

    def reading(*shown):
        fresh = DiscoFeatures(disco.background, classes, tilings=disco.tilings, resolution=disco.resolution, cap=disco.cap)
        return [fresh.from_screen(screen) for screen in shown][-1].tolist()

    assert reading(last, first) != reading(first)  # on this seed the previous episode's last screen would matter
    assert features.tolist() == reading(first)
