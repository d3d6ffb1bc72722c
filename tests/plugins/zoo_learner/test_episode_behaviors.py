"""Each actor's behavior is held for a whole episode (GDI Algorithm 2, DiCE Algorithm 3): drawn at the
episode's start, used at every step and stored with every sequence of the episode, however many
sequences the episode is cut into."""

import gymnasium
import numpy as np
import torch
from learner_stubs import CountingEnv, RecordingController
from zoo_learner.actor import VectorActor
from zoo_learner.networks import NetworkParams, build_network


def test_the_behavior_is_drawn_once_per_episode_and_used_at_every_step():
    envs = gymnasium.vector.SyncVectorEnv([lambda: CountingEnv(lengths=(11, 7))])
    torch.manual_seed(0)
    net = build_network(NetworkParams(hidden=[8], lstm=4), (2,), 3)
    seen = []  # (episode id of the observation, behavior the policy was given) per step

    def policy(adv, value, behavior):
        return torch.log_softmax(adv[:, 0], -1)

    sequences, controller = [], RecordingController()
    actor = VectorActor(envs, net, policy, [controller], sequences.append, burn_in=2, length=3,
                        pull=lambda: (0, net.state_dict()), pull_every=1000, generator=torch.Generator().manual_seed(0))
    actor.reset(seed=0)
    step = actor.acting.step

    def recording_step(obs, state):
        seen.append((int(obs[0, 0]), actor.behavior()[0, 0].item()))
        return step(obs, state)

    actor.acting.step = recording_step
    _, episodes = actor.run(40)
    assert [e.length for e in episodes[:3]] == [11, 7, 11]
    # episode k (its observations carry k) acts with behavior k at every step: one draw per episode
    assert all(behavior == episode for episode, behavior in seen)
    assert controller.count == len(episodes) + 1
    by_episode = {}
    for s in sequences:
        episode = int(s["obs"][s["valid"]][0, 0])
        by_episode.setdefault(episode, set()).add(float(s["behavior"][0]))
    assert len(by_episode) >= 3 and all(values == {float(e)} for e, values in by_episode.items())
    assert sum(1 for s in sequences if int(s["obs"][s["valid"]][0, 0]) == 0) == 4  # 11 steps in 4 sequences
    assert [float(choice.value[0]) for choice in (e.choice for e in episodes)] == list(range(len(episodes)))
    assert np.all(np.diff([e.choice.arm for e in episodes]) == 1)
