"""Every built-in agent, interrupted at a random checkpoint and resumed, against its uninterrupted run.

An agent that records ``exact_resume`` in the manifest must reproduce every metrics row; one that
does not must still reproduce the rows up to its checkpoint and finish the budget. Budgets are tiny:
the point is the checkpoint, not the learning.
"""

from __future__ import annotations

import json
import random

import pytest
from agent_runs import SPECS, checkpoint_root, final_state, new_run, rows

from zoo import Interrupted, execute_run, run_trials
from zoo.registry import get_registry


def test_every_built_in_agent_is_covered():
    # 'human' is people's recorded play, which zoo train refuses (tests/plugins/zoo_gohr_study/test_leaderboard_human.py)
    assert set(SPECS) | {"human"} == set(get_registry().names("agent"))


@pytest.mark.slow  # every built-in agent trained twice, about 2 minutes
@pytest.mark.parametrize("agent", sorted(SPECS))
def test_interrupted_at_a_random_checkpoint_and_resumed(agent, tmp_path):
    registry = get_registry()
    whole = new_run(tmp_path, agent, "whole")
    assert execute_run(whole, registry, progress=False) == "finished"

    cut = new_run(tmp_path, agent, "cut")
    chunks = random.Random(agent).randint(1, 4)  # learn() calls before the stop: a checkpoint at an arbitrary point
    answers = iter([False] * (chunks - 1))
    with pytest.raises(Interrupted):
        run_trials(cut.path, [0], registry=registry, should_stop=lambda: next(answers, True))
    checkpoint = max(checkpoint_root(cut, agent).glob("*-*"))
    stopped_at = json.loads((checkpoint / "progress.json").read_text())["steps"][0]
    assert execute_run(cut, registry, progress=False) == "finished"

    manifest = json.loads(cut.manifest_path.read_text())
    assert manifest["resumed"] == {"0": [checkpoint.name]}
    resumed, reference = rows(cut), rows(whole)
    assert 0 < stopped_at < reference[-1]["step"]
    if manifest["exact_resume"]:
        assert resumed == reference
        assert final_state(cut, agent) == final_state(whole, agent)
    else:
        assert [r for r in resumed if r["step"] <= stopped_at] == [r for r in reference if r["step"] <= stopped_at]
        assert resumed[-1]["step"] >= stopped_at
