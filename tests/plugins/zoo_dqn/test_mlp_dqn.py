"""The authors' later MLP DQN preset: its input featurizations, masking, and exact resume."""

from __future__ import annotations

import json

import numpy as np
import pytest
from zoo_dqn.mlp import History, MLPDQNAgent
from zoo_dqn.params import MLPDQNParams
from zoo_gohr.plugin import GohrEnvParams, make_env
from zoo_gohr.vector.layout import ObservationLayout

from zoo.agent import TrialContext
from zoo.metrics import MetricLogger

SMALL = dict(hidden=[32], replay_size=200, batch_size=16, history=2)


def _context(tmp_path, seed=0):
    params = GohrEnvParams(rule="paper/b3_then_b1", horizon=40)
    return TrialContext(seed=seed, trial=0, directory=tmp_path, env_params=params, make_env=lambda s: make_env(params, s),
                        logger=MetricLogger(tmp_path), budget=None)


@pytest.mark.parametrize("featurization, size", [("BS_AS", 288 + 6 * 432), ("BD_AD", 288 + 6 * 24),
                                                 ("BS_AD", 288 + 6 * 304), ("BD_AS", 288 + 6 * 152)])
def test_input_sizes_of_the_authors_featurizations(featurization, size):
    layout = ObservationLayout(("SQUARE", "STAR", "CIRCLE", "TRIANGLE"), ("RED", "BLACK", "BLUE", "YELLOW"))
    assert History(MLPDQNParams(featurization=featurization), layout).size == size  # BS_AS n=6: 2880


def test_bd_ad_remembers_the_piece_and_its_row_column_bucket_newest_first():
    layout = ObservationLayout(("SQUARE", "STAR", "CIRCLE", "TRIANGLE"), ("RED", "BLACK", "BLUE", "YELLOW"))
    history = History(MLPDQNParams(featurization="BD_AD", history=2), layout)
    board = np.zeros(layout.size, np.float32)
    board[7 * 8 + 1] = board[7 * 8 + 4 + 2] = 1.0  # cell 8 (index 7): STAR, BLUE
    history.accepted(board, 7 * 4 + 3)           # row 1, column 1, bucket 3
    vector = history.vector(np.zeros(layout.size, np.float32))
    move = vector[288:288 + 24]
    assert np.flatnonzero(move).tolist() == [1, 6, 8 + 1, 8 + 6 + 1, 8 + 12 + 3]
    assert not vector[288 + 24:].any()


def test_masked_agent_never_repeats_a_rejected_move_before_an_acceptance(tmp_path):
    context = _context(tmp_path)
    agent = MLPDQNAgent(MLPDQNParams(**SMALL), context)
    agent.learn_episodes(3)
    size = agent.counts["size"]
    actions, rewards = agent.buffer["action"][:size], agent.buffer["reward"][:size]
    rejected: set[int] = set()
    for action, reward in zip(actions, rewards):
        assert action not in rejected
        rejected = set() if reward == 0 else rejected | {int(action)}
    assert agent.episodes == 3


def test_resume_continues_exactly(tmp_path):
    straight = MLPDQNAgent(MLPDQNParams(**SMALL), _context(tmp_path / "a"))
    straight.learn_episodes(4)
    first = MLPDQNAgent(MLPDQNParams(**SMALL), _context(tmp_path / "b"))
    first.learn_episodes(2)
    (tmp_path / "ckpt").mkdir()
    first.save(tmp_path / "ckpt")
    second = MLPDQNAgent(MLPDQNParams(**SMALL), _context(tmp_path / "c"))
    second.load(tmp_path / "ckpt")
    second.learn_episodes(2)
    straight.context.logger.flush()
    second.context.logger.flush()
    rows = [json.loads(line) for line in (tmp_path / "a" / "metrics.jsonl").read_text().splitlines()]
    resumed = [json.loads(line) for line in (tmp_path / "c" / "metrics.jsonl").read_text().splitlines()]
    assert len(rows) == 4 and resumed == rows[2:] and second.steps == straight.steps
