"""A GOHR run's errors as the study reads them, and the authors' convergence test at its edges."""

from __future__ import annotations

import numpy as np
import pytest
from gohr_runs import gohr_run
from zoo_gohr_study.errors import converged, read_run

from zoo.errors import ZooError


def test_the_convergence_window_is_the_last_150_episodes():
    errors = np.zeros((2, 200), int)
    errors[0, -151] = 4  # just before the window: nothing counts
    errors[1, -150] = 4  # its first episode: 4 / (1350 + 4) = 0.30% of the moves
    assert converged(errors, pieces=9).tolist() == [True, False]


def test_a_share_of_exactly_a_quarter_percent_is_not_convergence():
    errors = np.zeros((3, 133), int)
    errors[0, :3] = 1  # 3 / (133 * 9 + 3) = 3 / 1200, exactly 0.25%
    errors[1, :2] = 1  # 2 / 1199
    errors[2, 0] = 3
    assert converged(errors, pieces=9, window=133).tolist() == [False, True, False]
    assert converged(errors, pieces=9, window=133, share=0.003).tolist() == [True, True, True]
    just_below = np.zeros((1, 222), int)
    just_below[0, :5] = 1  # 5 / (222 * 9 + 5) = 5 / 2003, 0.2496%
    assert converged(just_below, pieces=9, window=222).tolist() == [True]


def test_a_run_shorter_than_the_window_is_judged_on_all_its_episodes():
    # one error in two episodes of nine pieces is 1 / 19 of the moves, not 1 / 1351
    errors = np.array([[0, 1], [0, 0]])
    assert converged(errors, pieces=9).tolist() == [False, True]
    # with 2000 pieces an episode, 1 / 4001 is below 0.25%
    assert converged(errors, pieces=2000).tolist() == [True, True]


def test_read_run_takes_the_episode_returns_and_the_boards_pieces(tmp_path):
    run = read_run(gohr_run(tmp_path, "five", [[2, 0, 1], [], [1, 1]], board={"min_objects": 5}))
    # the trial without a finished episode is left out; the others' curves are cut to the shortest, not their TCE
    assert run.errors.tolist() == [[2, 0], [1, 1]] and run.errors.dtype == np.int64
    assert run.cumulative.tolist() == [[2, 2], [1, 2]] and run.tce.tolist() == [3.0, 2.0]
    assert (run.label, run.pieces) == ("five", 5)
    assert run.converged.tolist() == [False, False]
    plain = read_run(gohr_run(tmp_path, "plain", [[0, 0]]), label="named")
    assert (plain.label, plain.pieces, plain.converged.tolist()) == ("named", 9, [True])


def test_read_run_refuses_other_environments_and_runs_without_episodes(tmp_path):
    for env in ("minigrid", "atari"):  # names after and before "gohr"
        with pytest.raises(ZooError, match=rf"{env}: not a GOHR run \(env {env}\)"):
            read_run(gohr_run(tmp_path, env, [[1]], env=env))
    with pytest.raises(ZooError, match="empty: no finished episodes yet"):
        read_run(gohr_run(tmp_path, "empty", [[], []]))
