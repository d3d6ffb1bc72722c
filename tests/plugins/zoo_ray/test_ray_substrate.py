"""The substrate's two launchers: several actors in one process (local backend) and Ray actor processes.

The Ray tests share one local Ray with 2 CPUs, started once for the module; a stand-in for the
spec's ray backend block (``type: ray``, no address) tells the agent to launch Ray actors.
"""

import hashlib
import json
import time
from collections import Counter
from types import SimpleNamespace

import numpy as np
import pytest
import ray
import torch
from zoo_learner import distributed
from zoo_learner.distributed import RaySubstrateAgent
from zoo_learner.replay import FIELDS
from zoo_learner.state import to_plain

from zoo import ZooError, build_trial
from zoo.registry import get_registry
from zoo.spec import load_spec_text

pytestmark = pytest.mark.slow  # starts Ray

RAY = SimpleNamespace(type="ray", address=None, torch_threads=1)
SMALL = "{type: gdi-i3, num_envs: 2, batch: 2, length: 5, burn_in: 2, network: {hidden: [16], lstm: 8}"


@pytest.fixture(scope="module")
def local_ray():
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield
    ray.shutdown()


def trial(agent: str, tmp_path, *, backend=None, steps=2000, seed=0):
    spec = load_spec_text(f"env: {{type: gym, id: CartPole-v1}}\nagent: {agent}\nbudget: {{steps: {steps}}}\n",
                          get_registry())
    if backend is not None:
        spec = spec.model_copy(update={"backend": backend})
    return build_trial(spec, get_registry(), seed=seed, trial=0, directory=tmp_path)


def digest(sequence: dict) -> str:
    return hashlib.sha256(b"".join(np.ascontiguousarray(sequence[name]).tobytes() for name in FIELDS)).hexdigest()


def fingerprints(replay) -> list[str]:
    """One digest per sequence in the replay, sorted (the order actors deliver in is not fixed)."""
    state = replay.state_dict()
    return sorted(digest({name: state[name][i] for name in FIELDS}) for i in range(len(state["uses"])))


def close(built):
    built.agent.close()
    built.logger.close()


def test_local_actors_step_in_turn_and_the_first_is_the_single_actor(tmp_path):
    one = trial(SMALL + "}", tmp_path / "one")
    two = trial(SMALL + ", actors: 2}", tmp_path / "two")
    assert type(two.agent).__name__ == "SubstrateAgent" and len(two.agent.system.actors) == 2
    assert len(two.agent.controllers) == 4
    for _ in range(4):
        one.agent.system.collect()
        two.agent.system.collect()
    assert [a.vector_steps for a in two.agent.system.actors] == [one.agent.system.actor.vector_steps] * 2 == [20] * 2
    first, both = fingerprints(one.agent.system.replay), fingerprints(two.agent.system.replay)
    assert first and set(first) < set(both) and len(set(both)) == len(both)  # actor 1 acts on envs of its own
    for built in (one, two):
        close(built)


def test_local_actors_checkpoint_round_trip(tmp_path):
    a = trial(SMALL + ", actors: 2}", tmp_path / "a")
    a.agent.learn(400)
    (tmp_path / "ckpt").mkdir()
    a.agent.save(tmp_path / "ckpt")
    b = trial(SMALL + ", actors: 2}", tmp_path / "b")
    b.agent.load(tmp_path / "ckpt")
    second_a, second_b = a.agent.system.actors[1], b.agent.system.actors[1]
    assert (second_a.version, second_a.vector_steps) == (second_b.version, second_b.vector_steps)
    assert torch.equal(second_a.generator.get_state(), second_b.generator.get_state())
    assert all(torch.equal(x, y) for x, y in zip(second_a.net.state_dict().values(), second_b.net.state_dict().values()))
    for built in (a, b):
        close(built)


def test_ray_is_named_when_it_is_missing(monkeypatch):
    monkeypatch.setitem(__import__("sys").modules, "ray", None)
    with pytest.raises(ZooError, match=r"zoo-rl\[ray\]"):
        distributed.connect(RAY)


def test_ray_actors_make_the_local_launchers_sequences(local_ray, tmp_path):
    local = trial(SMALL + ", actors: 2}", tmp_path / "local")
    remote = trial(SMALL + ", actors: 2}", tmp_path / "ray", backend=RAY)
    assert isinstance(remote.agent, RaySubstrateAgent) and remote.agent.exact_resume is False
    sequences, made = [], 0
    for actor in remote.agent.system.actors:
        for _ in range(4):  # no update yet: every actor acts with version 0, as the local ones do
            transitions, _, delivered, version = ray.get(actor.run.remote(5))
            assert version == 0
            sequences += delivered
            made += transitions
    assert made == sum(local.agent.system.collect()[0] for _ in range(4))
    assert sorted(map(digest, sequences)) == fingerprints(local.agent.system.replay) and sequences
    for built in (local, remote):
        close(built)


def test_weights_reach_ray_actors_with_versions_that_advance(local_ray, tmp_path):
    built = trial(SMALL + ", actors: 2, push_every: 1, pull_every: 2}", tmp_path, backend=RAY)
    system, seen, lags = built.agent.system, [], []

    def distinct(k):  # the versions actor k has acted with so far (-1: none yet)
        return {v[k] for v in seen if v[k] >= 0}

    for _ in range(1000):  # an actor on a slow core may skip versions, so go on until each has shown 4
        if min(system.versions) >= 20 and all(len(distinct(k)) > 3 for k in range(2)):
            break
        built.agent.train_step()
        seen.append(list(system.versions))
        lags.append(system.server.version - max(system.versions))
    assert min(system.versions) >= 20
    for k in range(2):
        versions = [v[k] for v in seen if v[k] >= 0]
        assert versions == sorted(versions) and len(set(versions)) > 3
    assert system.learner.updates > 0 and system.replay.added > 0 and max(lags) > 0  # the actors lag the learner
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    assert all(np.isfinite(r["learner/loss"]) for r in rows if "learner/loss" in r)
    close(built)


def test_ray_actors_keep_calls_queued_while_the_learner_works(local_ray, tmp_path):
    built = trial(SMALL + ", actors: 2}", tmp_path, backend=RAY)
    system = built.agent.system
    system.collect()  # the learner takes one result; each actor still has CALLS_AHEAD calls to step through
    ready, _ = ray.wait(list(system.pending), num_returns=len(system.pending), timeout=60)
    assert distributed.CALLS_AHEAD >= 2
    assert Counter(system.pending[ref] for ref in ready) == {0: distributed.CALLS_AHEAD, 1: distributed.CALLS_AHEAD}
    close(built)


def test_ray_checkpoint_gathers_every_actor(local_ray, tmp_path):
    a = trial(SMALL + ", actors: 2}", tmp_path / "a", backend=RAY)
    a.agent.learn(300)
    (tmp_path / "ckpt").mkdir()
    a.agent.save(tmp_path / "ckpt")
    saved = [c.state_dict() for c in a.agent.controllers]
    close(a)
    b = trial(SMALL + ", actors: 2}", tmp_path / "b", backend=RAY)
    b.agent.load(tmp_path / "ckpt")
    assert (b.agent.steps, b.agent.system.learner.updates) == (a.agent.steps, a.agent.system.learner.updates)
    restored = [c.state_dict() for c in b.agent.controllers]  # bandit weights and counts (b has drawn new episodes)
    assert json.dumps(to_plain([c["bandits"] for c in saved])) == json.dumps(to_plain([c["bandits"] for c in restored]))
    assert sum(np.sum(bandit["N"]) for c in restored for e in c["bandits"] for bandit in e) > 0
    b.agent.learn(200)
    assert b.agent.steps >= a.agent.steps + 200
    close(b)


def process_id(actor) -> int:
    """The actor's process id, waiting while Ray restarts it."""
    for _ in range(300):
        try:
            return ray.get(actor.ready.remote())
        except ray.exceptions.ActorUnavailableError:
            time.sleep(0.1)
    raise AssertionError("the actor did not come back")


def test_a_crashed_ray_actor_restarts_and_the_run_goes_on(local_ray, tmp_path):
    built = trial(SMALL + ", actors: 2}", tmp_path, backend=RAY)
    system = built.agent.system
    built.agent.learn(100)
    first = process_id(system.actors[0])
    ray.kill(system.actors[0], no_restart=False)
    built.agent.learn(200)
    assert process_id(system.actors[0]) != first
    system.versions[0] = -1
    for _ in range(1000):  # the restarted process delivers again
        if system.versions[0] >= 0:
            break
        built.agent.train_step()
    assert system.versions[0] >= 0 and system.failures[1] == 0
    close(built)


def test_an_actor_that_keeps_failing_stops_the_run_with_its_name(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(distributed, "MAX_RESTARTS", 0)
    built = trial(SMALL + ", actors: 2}", tmp_path, backend=RAY)
    built.agent.learn(100)
    ray.kill(built.agent.system.actors[1], no_restart=False)
    with pytest.raises(ZooError, match="substrate actor 1 failed 1 times"):
        built.agent.learn(100_000)
    close(built)


def test_actors_that_cannot_start_are_a_clear_error(local_ray, tmp_path, monkeypatch):
    monkeypatch.setattr(distributed, "START_TIMEOUT", 2.0)
    with pytest.raises(ZooError, match=r"agent.actors: 2 of 2 Ray actors \(3 CPU each\) did not start within 2 s"):
        trial(SMALL + ", actors: 2, actor_cpus: 3}", tmp_path, backend=RAY)  # the local Ray has 2 CPUs


def test_gdi_i3_with_two_ray_actors_learns_cartpole(local_ray, tmp_path):
    """The local substrate's run (tests/plugins/zoo_gdi/test_agent.py: GDI-I3 on CartPole, 25,000 steps, mean return of the
    last 20 training episodes) with the same 8 env slots split over 2 Ray actors. Runs on Ray are not
    deterministic, and one seed's final mean spread from 24.7 to 64.7 over six repeats, so the bar is on the
    mean over seeds 0-3: six repeats of it gave 33.6 to 47.9 (about 7 s a run), while the untrained policy's
    first 20 episodes average 11 to 23 (random play about 22)."""
    finals = []
    for seed in range(4):
        built = trial("{type: gdi-i3, actors: 2, num_envs: 4}", tmp_path / str(seed), backend=RAY, steps=25_000,
                      seed=seed)
        built.agent.learn(25_000)
        close(built)
        rows = [json.loads(line) for line in (tmp_path / str(seed) / "metrics.jsonl").read_text().splitlines()]
        finals.append(np.mean([r["episode_return"] for r in rows if "episode_return" in r][-20:]))
    assert np.mean(finals) >= 28.0, finals
