"""Actors cut episodes into sequences (burn-in, trained rows, bootstrap), store mu and state, and report returns."""

import gymnasium
import numpy as np
import torch
from learner_stubs import PixelEnv, RecordingController
from zoo_learner.actor import VectorActor
from zoo_learner.networks import NetworkParams, build_network, scale_obs


def make_actor(envs, sink, burn_in=2, length=3, pull_every=1000, controllers=None, server=None):
    torch.manual_seed(0)
    net = build_network(NetworkParams(hidden=[8], lstm=4), (2,), 3)
    server = server or (lambda: (0, net.state_dict()))

    def policy(adv, value, behavior):
        return torch.log_softmax(adv[:, 0] * 0.1, -1)

    actor = VectorActor(envs, net, policy, controllers or [RecordingController()], sink, burn_in=burn_in,
                        length=length, pull=server, pull_every=pull_every, generator=torch.Generator().manual_seed(0))
    actor.reset(seed=0)
    return actor


def trained_rows(sequences):
    """(episode, step) of every trained row, from the observations."""
    rows = []
    for s in sequences:
        rows += [tuple(s["obs"][r].astype(int)) for r in np.flatnonzero(s["train"])]
    return rows


def test_every_step_is_trained_exactly_once(counting_envs):
    sequences = []
    actor = make_actor(counting_envs(1, lengths=(7, 2, 4)), sequences.append)
    transitions, episodes = actor.run(40)
    assert [e.length for e in episodes[:3]] == [7, 2, 4]
    done = sum(e.length for e in episodes)
    expected = []
    for e in range(len(episodes)):
        expected += [(e, t) for t in range((7, 2, 4)[e % 3])]
    assert trained_rows(sequences)[:done] == expected


def test_sequence_layout_burn_in_bootstrap_and_padding(counting_envs):
    sequences = []
    actor = make_actor(counting_envs(1, lengths=(7,)), sequences.append, burn_in=2, length=3)
    actor.run(9)
    first, second, last = sequences[:3]
    # first sequence: left padding where burn-in would be, trained steps 0..2, bootstrap step 3
    assert first["valid"].tolist() == [False, False, True, True, True, True]
    assert first["obs"][:, 1].tolist() == [0, 0, 0, 1, 2, 3]
    assert not first["state"].any()
    # second: burn-in = steps 1, 2; trained 3..5; bootstrap 6; stored state is the actor's state before step 1
    assert second["obs"][:, 1].tolist() == [1, 2, 3, 4, 5, 6] and second["train"].tolist() == [0, 0, 1, 1, 1, 0]
    assert second["state"].any()
    # last: the episode ends after step 6; its final observation (t = 7) is the bootstrap row
    assert last["obs"][:, 1].tolist()[:4] == [4, 5, 6, 7] and last["train"].tolist() == [0, 0, 1, 0, 0, 0]
    assert last["done"][2] == 1.0 and last["reward"][2] == 6.0
    assert last["valid"].tolist() == [True, True, True, True, False, False]


def test_stored_mu_is_the_policy_that_acted(counting_envs):
    sequences = []
    actor = make_actor(counting_envs(2, lengths=(5,)), sequences.append)
    actor.run(12)
    for s in sequences:
        rows = s["valid"]
        assert np.allclose(s["mu"][rows].sum(-1), 1.0, atol=1e-5)
        assert (s["mu"][rows, s["action"][rows]] > 0).all()
    net, state = actor.net, actor.net.initial_state(1)
    first = sequences[0]
    with torch.no_grad():
        (adv, _), _ = net.step(torch.as_tensor(first["obs"][2:3]), state)
    assert np.allclose(torch.softmax(adv[:, 0] * 0.1, -1).numpy(), first["mu"][2], atol=1e-6)


def test_controller_gets_raw_returns_and_behaviors_are_stored(counting_envs):
    sequences, controller = [], RecordingController()
    actor = make_actor(counting_envs(1, lengths=(3,)), sequences.append, controllers=[controller])
    actor.run(8)
    # episode 0: rewards 0+1+2 = 3 with behavior 0; episode 1: 10+11+12 = 33 with behavior 1
    assert controller.updates == [(0.0, 3.0), (1.0, 33.0)]
    assert [float(s["behavior"][0]) for s in sequences] == [0.0, 1.0]
    assert [int(s["arm"]) for s in sequences] == [0, 1]


def test_truncation_is_not_terminal(counting_envs):
    sequences = []
    actor = make_actor(counting_envs(1, lengths=(2,), truncate=True), sequences.append)
    actor.run(3)
    assert sequences[0]["done"].sum() == 0 and sequences[0]["obs"][4, 1] == 2  # bootstrap from the final obs


def test_actor_pulls_weights_with_a_lag(counting_envs):
    pulls = []

    def server():
        pulls.append(len(pulls))
        return len(pulls) // 2, build_network(NetworkParams(hidden=[8], lstm=4), (2,), 3).state_dict()

    actor = make_actor(counting_envs(1), lambda s: None, pull_every=4, server=server)
    actor.run(12)
    assert len(pulls) == 1 + 3  # at reset, then every 4 vector steps


def test_pixels_are_scaled_exactly():
    pixels = torch.arange(256, dtype=torch.uint8).reshape(4, 64)
    assert torch.equal(scale_obs(pixels), pixels.float() / 255.0)
    sequences = []
    torch.manual_seed(0)
    net = build_network(NetworkParams(torso="minatar", embedding=8, lstm=4), (1, 6, 6), 3)
    actor = VectorActor(gymnasium.vector.SyncVectorEnv([PixelEnv, PixelEnv]), net,
                        lambda adv, value, behavior: torch.log_softmax(adv[:, 0], -1), [RecordingController()],
                        sequences.append, burn_in=1, length=2, pull=lambda: (0, net.state_dict()), pull_every=1000,
                        generator=torch.Generator().manual_seed(0))
    actor.reset(seed=0)
    actor.run(11)
    assert len(sequences) >= 8
    for s in sequences:  # replay every valid row from the stored state, scaling the plain way
        state = torch.as_tensor(s["state"]).unsqueeze(0)
        with torch.no_grad():
            for row in np.flatnonzero(s["valid"]):
                (adv, _), state = net.step(torch.as_tensor(s["obs"][row : row + 1]).float() / 255.0, state)
                assert np.allclose(torch.softmax(adv[:, 0], -1).numpy(), s["mu"][row], atol=1e-6)
