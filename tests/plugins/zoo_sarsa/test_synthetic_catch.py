"""SARSA(lambda) with Basic features, and with RAM features, on SyntheticAtari
Catch beats the random agent by at least 3 standard errors after 200 training episodes.

The shipped specs run as they are: 3 trials of 200 training episodes, 100 evaluation episodes each;
the 300 evaluation returns of SARSA are compared with the random agent's 300 (Welch's z).

Calibration (these specs with ``seed`` 0 to 9): Basic z 8.0 to 18.7 (median 14.5), RAM z 4.9 to 13.4
(median 9.6); the random agent's mean is about -0.6 (it is under the ball one time in five). Single
trials are much less reliable (Basic z 1.9 to 21 over 20 seeds), hence three. About 1 CPU-second of
training per feature set.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from zoo import execute_run, prepare_run
from zoo.registry import get_registry

EXAMPLES = Path(__file__).parents[3] / "examples"


def evaluation_returns(tmp_path: Path, spec_text: str) -> np.ndarray:
    spec = tmp_path / "spec.yaml"
    spec.write_text(spec_text + "logging: {tensorboard: false, progress: false}\n")
    registry = get_registry()
    folder = prepare_run(spec, registry, tmp_path / "runs")
    assert execute_run(folder, registry, progress=False) == "finished"
    results = [json.loads((folder.trial_dir(t) / "result.json").read_text()) for t in range(3)]
    return np.concatenate([result["eval_returns"] for result in results])


def welch_z(a: np.ndarray, b: np.ndarray) -> float:
    return float((a.mean() - b.mean()) / np.sqrt(a.var(ddof=1) / len(a) + b.var(ddof=1) / len(b)))


@pytest.fixture(scope="module")
def random_returns(tmp_path_factory) -> np.ndarray:
    return evaluation_returns(tmp_path_factory.mktemp("random"), (EXAMPLES / "ale-random-catch.yaml").read_text())


@pytest.mark.slow  # a learning check against random play
@pytest.mark.parametrize("features", ["{type: basic, background_frames: 1000}", "{type: ram}"])
def test_sarsa_beats_random_on_catch(tmp_path, random_returns, features):
    text = (EXAMPLES / "atari-sarsa-catch.yaml").read_text()
    assert "features: {type: basic, background_frames: 1000}" in text
    sarsa = evaluation_returns(tmp_path, text.replace("{type: basic, background_frames: 1000}", features))
    assert len(sarsa) == len(random_returns) == 300
    assert set(np.unique(random_returns)) == {-1.0, 1.0}
    assert welch_z(sarsa, random_returns) >= 3
