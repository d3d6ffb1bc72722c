"""The progress bar of zoo train shows the running return and the latest evaluation, from worker processes too."""

from __future__ import annotations

import re

import pytest

from zoo.cli import main
from zoo.console import ProgressBar
from zoo.metrics import RUNNING_EPISODES, MetricLogger, Running, read_metrics

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_epochs: 1}
budget: {steps: 256, checkpoint_every: 128, eval_every: 128, eval_episodes: 2}
trials: 2
backend: {workers: 2}
logging: {tensorboard: false}
"""


def test_the_logger_keeps_the_mean_of_the_last_episodes_and_continues_it_on_resume(tmp_path):
    logger = MetricLogger(tmp_path)
    assert logger.running() == Running(None, None)
    returns = [float(r) for r in range(RUNNING_EPISODES + 20)]
    for step, value in enumerate(returns):
        logger.log(step, episode_return=value, episode_length=3)
        if step == 50:
            logger.log(step, eval_return=7.5)
    logger.log(len(returns), loss=0.1)
    expected = Running(sum(returns[-RUNNING_EPISODES:]) / RUNNING_EPISODES, 7.5)
    assert logger.running() == expected
    logger.close()
    resumed = MetricLogger(tmp_path, resume_step=len(returns) - 1)
    assert resumed.running() == expected
    resumed.close()
    resumed = MetricLogger(tmp_path, resume_step=40)  # before the evaluation
    assert resumed.running() == Running(sum(returns[:41]) / 41, None)
    resumed.close()


def test_the_bar_averages_the_trials_that_have_returns():
    bar = ProgressBar(enabled=False, label="run", trials=3, amount=10, unit="steps")
    assert bar.returns_text() == ""
    bar.update(0, 5, Running(10.0, None))
    bar.update(1, 5, Running(20.0, 4.0))
    bar.update(2, 5, Running(None, None))
    bar.update(2, 6)  # a backend that sends no returns keeps the last ones
    assert bar.returns_text() == "return 15.0 eval 4.0"


@pytest.mark.slow  # zoo train with trials in worker processes
def test_zoo_train_shows_the_running_return_of_trials_in_worker_processes(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "200")
    spec = tmp_path / "spec.yaml"
    spec.write_text(SPEC)
    run = tmp_path / "runs" / "bar"
    assert main(["train", str(spec), "--run-dir", str(run)]) == 0
    bar = [line for line in capsys.readouterr().err.splitlines() if "512/512 steps" in line][-1]
    means, evals = [], []
    for trial in ("000", "001"):
        rows = read_metrics(run / "trials" / trial / "metrics.jsonl")
        returns = [r["episode_return"] for r in rows if "episode_return" in r][-RUNNING_EPISODES:]
        means.append(sum(returns) / len(returns))
        evals.append([r["eval_return"] for r in rows if "eval_return" in r][-1])
    assert re.search(rf"return {sum(means) / 2:.1f} eval {sum(evals) / 2:.1f}\s*$", bar), bar
