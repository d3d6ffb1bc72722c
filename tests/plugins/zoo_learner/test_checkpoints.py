"""Checkpoints of dice and lbc: a save/load round trip restores networks, optimizer, replay, meta-controllers
(DiCE's Omega, LBC's lbc_bandits), the actor's episodes in progress and counters exactly, and a run interrupted through the run API resumes
to the end with the counters and metric streams of the checkpoint it resumed from.
"""

import json

import numpy as np
import pytest
import torch
from zoo_learner.state import to_plain
from zoo_testing import GOHR_COLOR_MATCH, TINY_SUBSTRATE, spec, trial

from zoo import Interrupted, prepare_run, run_trials
from zoo.registry import get_registry

SMALL = f"{TINY_SUBSTRATE}, pull_every: 3, push_every: 2"
#: agent -> class of its default meta-controller (Omega: gdi_bandits with DiCE's constants; lbc_bandits)
AGENTS = {"dice": "BanditPopulation", "lbc": "VotingPopulation"}


def build(agent, directory, steps=1000):
    return trial(spec(f"{GOHR_COLOR_MATCH}agent: {{type: {agent}, {SMALL}}}\nbudget: {{steps: {steps}}}\n"), directory)


def plain(value) -> str:
    return json.dumps(to_plain(value), sort_keys=True)


def same_tensors(a: dict, b: dict) -> bool:
    return a.keys() == b.keys() and all(torch.equal(a[k], b[k]) for k in a)


@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_save_load_round_trip_is_exact(agent, tmp_path):
    first = build(agent, tmp_path / "a")
    a = first.agent
    a.learn(600)
    assert a.episodes > 0 and a.system.learner.updates > 0 and a.system.actor.version != a.system.server.version
    (tmp_path / "ckpt").mkdir()
    a.save(tmp_path / "ckpt")
    second = build(agent, tmp_path / "b")
    b = second.agent
    b.load(tmp_path / "ckpt")
    assert (a.steps, a.episodes, a.system.actor.vector_steps) == (b.steps, b.episodes, b.system.actor.vector_steps)
    la, lb = a.system.learner, b.system.learner
    assert la.updates == lb.updates and same_tensors(la.net.state_dict(), lb.net.state_dict())
    oa, ob = la.optimizer.state_dict(), lb.optimizer.state_dict()
    assert oa["param_groups"] == ob["param_groups"] and oa["state"].keys() == ob["state"].keys()
    assert all(same_tensors(oa["state"][k], ob["state"][k]) for k in oa["state"])
    assert a.system.server.version == b.system.server.version
    assert same_tensors(a.system.server.params, b.system.server.params)
    assert a.system.actor.version == b.system.actor.version  # the actor's lag is restored with its weights
    assert same_tensors(a.system.actor.net.state_dict(), b.system.actor.net.state_dict())
    ra, rb = a.system.replay.state_dict(), b.system.replay.state_dict()
    assert ra.keys() == rb.keys() and all(np.array_equal(ra[k], rb[k]) for k in ra)
    assert [type(c).__name__ for c in b.controllers] == [AGENTS[agent]]
    assert [plain(c.state_dict()) for c in a.controllers] == [plain(c.state_dict()) for c in b.controllers]
    assert torch.equal(a.system.generator.get_state(), b.system.generator.get_state())
    assert a.system.rng.bit_generator.state == b.system.rng.bit_generator.state
    sa, sb = a.system.actor.state_dict(), b.system.actor.state_dict()  # episodes in progress, recurrent states
    assert sa.keys() == sb.keys() and all(np.array_equal(sa[k], sb[k]) for k in sa)
    assert np.array_equal(a.system.actor.obs, b.system.actor.obs)  # the envs were stepped to where A's are
    updates = lb.updates
    a.learn(300)
    b.learn(300)
    assert lb.updates > updates
    assert (a.steps, a.episodes, la.updates) == (b.steps, b.episodes, lb.updates)
    assert same_tensors(la.net.state_dict(), lb.net.state_dict())  # and they go on identically
    for built in (first, second):
        built.agent.close()
        built.logger.close()


def metrics(folder):
    return [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]


@pytest.mark.slow  # two runs of 1,500 steps per agent, one interrupted
@pytest.mark.parametrize("agent", sorted(AGENTS))
def test_interrupted_run_resumes_to_the_end(agent, tmp_path):
    def run(name, interrupt):
        source = tmp_path / f"{name}.yaml"
        source.write_text(f"{GOHR_COLOR_MATCH}agent: {{type: {agent}, {SMALL}}}\n"
                          "budget: {steps: 1500, checkpoint_every: 500}\n"
                          "seed: 3\nlogging: {tensorboard: false, progress: false}\n")
        folder = prepare_run(source, get_registry(), tmp_path / name)
        stopped_at = None
        if interrupt:
            stops = iter([False] * 45)  # stop after about 700 steps (a learn() call makes about 15)
            with pytest.raises(Interrupted):
                run_trials(folder.path, [0], should_stop=lambda: next(stops, True))
            checkpoint = sorted((folder.trial_dir(0) / "checkpoints").iterdir())[-1]  # the interruption's
            stopped_at = json.loads((checkpoint / "agent" / "counters.json").read_text())["steps"]
        return folder, run_trials(folder.path, [0])[0], stopped_at

    whole, whole_result, _ = run("whole", False)
    resumed, result, stopped_at = run("resumed", True)
    assert 500 < stopped_at < 1500 and result["steps"] >= 1500 and whole_result["steps"] >= 1500
    rows, reference = metrics(resumed), metrics(whole)
    # up to the checkpoint the streams are the uninterrupted run's; after it they go on without gaps or repeats
    assert [r for r in rows if r["step"] <= stopped_at] == [r for r in reference if r["step"] <= stopped_at]
    assert all(x["step"] <= y["step"] for x, y in zip(rows, rows[1:])) and rows[-1]["step"] == result["steps"]
    final = sorted((resumed.trial_dir(0) / "checkpoints").iterdir())[-1] / "agent"
    counters = json.loads((final / "counters.json").read_text())
    assert counters["steps"] == result["steps"]
    assert counters["episodes"] == sum("episode_return" in r for r in rows)
    updates = [r["updates"] for r in rows if "updates" in r]
    assert updates == sorted(updates) and len(set(updates)) == len(updates)
    assert torch.load(final / "learner.pt", weights_only=True)["updates"] == updates[-1]
