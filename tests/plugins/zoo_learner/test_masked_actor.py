"""mask_actions end to end: the actor acts on legal actions only and stores the masks with its sequences,
the replay hands them to the learner, evaluation masks too, and with masking off (or an all-legal mask)
a run's metrics are those of the unmasked agent."""

import json

import gymnasium
import numpy as np
import pytest
import torch
from gymnasium import spaces
from learner_stubs import RecordingController
from zoo_learner.actor import VectorActor
from zoo_learner.builder import make_actor, make_replay
from zoo_learner.networks import NetworkParams, build_network
from zoo_learner.params import SubstrateParams

from zoo import ZooError, build_trial
from zoo.registry import get_registry
from zoo.spec import load_spec_text

ACTIONS = 5


class MaskedEnv(gymnasium.Env):
    """obs = the legal actions as floats; a new random mask of 1 to 5 legal actions each step (`all_legal`:
    every action); reward 1 for a legal action, -1 for an illegal one; episodes of 6 steps."""

    observation_space = spaces.Box(0.0, 1.0, (ACTIONS,), np.float32)
    action_space = spaces.Discrete(ACTIONS)

    def __init__(self, all_legal=False, with_mask=True):
        self.all_legal, self.with_mask = all_legal, with_mask

    def _draw(self):
        self.legal = np.ones(ACTIONS, bool)
        if not self.all_legal:
            self.legal = self.np_random.random(ACTIONS) < 0.4
            self.legal[self.np_random.integers(ACTIONS)] = True
        return self.legal.astype(np.float32), ({"action_mask": self.legal.copy()} if self.with_mask else {})

    def reset(self, *, seed=None, options=None):
        super().reset(seed=seed)
        self.t = 0
        return self._draw()

    def step(self, action):
        reward = 1.0 if self.legal[action] else -1.0
        self.t += 1
        obs, info = self._draw()
        return obs, reward, self.t >= 6, False, info


def vector(num_envs=3, **kwargs):
    return gymnasium.vector.SyncVectorEnv([lambda: MaskedEnv(**kwargs) for _ in range(num_envs)])


def uniform_policy(adv, value, behavior, legal=None):
    """Uniform over all actions, or over the legal ones: the actor must pass the mask for it to hold."""
    logits = torch.zeros_like(adv[:, 0])
    if legal is not None:
        logits = logits.masked_fill(~legal, -torch.inf)
    return torch.log_softmax(logits, -1)


def actor(envs, sink, masked=True, policy=uniform_policy):
    torch.manual_seed(0)
    net = build_network(NetworkParams(hidden=[8], lstm=4), (ACTIONS,), ACTIONS)
    act = VectorActor(envs, net, policy, [RecordingController()], sink, burn_in=2, length=3,
                      pull=lambda: (0, net.state_dict()), pull_every=1000, generator=torch.Generator().manual_seed(0),
                      masked=masked)
    act.reset(seed=0)
    return act


def test_masked_acting_never_takes_an_illegal_action_and_stores_the_masks():
    sequences = []
    transitions, episodes = actor(vector(), sequences.append).run(60)
    assert sum(e.episode_return for e in episodes) == sum(e.length for e in episodes)  # every move legal
    rows = 0
    for s in sequences:
        trained = s["train"]
        legal = s["legal"][trained]
        assert np.array_equal(legal, s["obs"][trained] > 0)  # the mask in force at that row
        assert legal[np.arange(len(legal)), s["action"][trained]].all()
        assert np.array_equal(s["mu"][trained] > 0, legal)  # mu is 0 exactly off the legal actions
        assert not s["legal"][~s["valid"]].any()  # padding has none
        rows += int(trained.sum())
    assert rows > 100


def test_without_masking_the_same_actor_takes_illegal_actions():
    """The check above can fail: the unmasked actor, with the same policy, does take illegal actions."""
    sequences = []
    _, episodes = actor(vector(), sequences.append, masked=False).run(60)
    assert sum(e.episode_return for e in episodes) < 0.5 * sum(e.length for e in episodes)
    assert "legal" not in sequences[0]


def test_masking_needs_the_env_to_give_a_mask():
    with pytest.raises(ValueError, match=r"no info\['action_mask'\]"):
        actor(vector(with_mask=False), [].append)


def test_masking_needs_a_behavior_policy_that_takes_the_mask():
    params = SubstrateParams(mask_actions=True)

    class Builder:
        def behavior_policy(self):
            return lambda adv, value, behavior: torch.log_softmax(adv[:, 0], -1)

    net = build_network(NetworkParams(hidden=[8], lstm=4), (ACTIONS,), ACTIONS)
    with pytest.raises(ValueError, match="takes no legal-action mask"):
        make_actor(Builder(), params, vector(), net, [RecordingController()], [].append, None, torch.Generator())


def test_the_replay_keeps_the_masks_with_the_sequences_and_through_its_checkpoint():
    replay = make_replay(SubstrateParams(mask_actions=True, reuse=1))
    act = actor(vector(), replay.add)
    act.run(30)
    restored = make_replay(SubstrateParams(mask_actions=True, reuse=1))
    restored.load_state_dict({k: np.array(v) for k, v in replay.state_dict().items()})
    rng = np.random.default_rng(0)
    batch = restored.sample(4, rng)
    assert batch["legal"].shape == batch["mu"].shape and batch["legal"].dtype == bool
    assert np.array_equal(batch["mu"][batch["train"]] > 0, batch["legal"][batch["train"]])
    assert "legal" not in make_replay(SubstrateParams()).fields


def test_the_actor_state_round_trips_with_its_masks():
    sequences = []
    first = actor(vector(), sequences.append)
    first.run(10)
    state = first.state_dict()
    second = actor(vector(), [].append)
    second.load_state_dict(state, first.net.state_dict())
    assert np.array_equal(second.legal, first.legal) and np.array_equal(second.writer.legal, first.writer.legal)
    after_first, after_second = [], []
    first.sink, second.sink = after_first.append, after_second.append
    second.generator.set_state(first.generator.get_state())
    first.run(10)
    second.run(10)
    assert all(np.array_equal(a["legal"], b["legal"]) and np.array_equal(a["action"], b["action"])
               for a, b in zip(after_first, after_second)) and len(after_first) == len(after_second) > 0


# Whole agents through the zoo, on GOHR (its env gives info["action_mask"]) and on an all-legal env.

GOHR = ("env: {type: gohr, rule: paper/color_match, horizon: 30, board: {min_objects: 9, min_shapes: 4, min_colors: 4}}\n"
        "agent: {type: AGENT, num_envs: 2, batch: 2, length: 5, burn_in: 2, MASK"
        "network: {torso: cells, hidden: [16], embedding: 16, lstm: 8}}\nbudget: {steps: 300}\n")


def trial(text, tmp_path, seed=3):
    torch.set_num_threads(1)
    return build_trial(load_spec_text(text, get_registry()), get_registry(), seed=seed, trial=0, directory=tmp_path)


@pytest.mark.parametrize("agent", ["gdi-i3", "gdi-h3", "dice", "lbc"])
def test_masked_agents_train_on_legal_moves_only(agent, tmp_path):
    """GOHR marks the moves of occupied cells legal: every move the masked agents store is one."""
    built = trial(GOHR.replace("AGENT", agent).replace("MASK", "mask_actions: true, "), tmp_path)
    actor, stored = built.agent.system.actor, []
    add = actor.sink
    actor.sink = lambda sequence: (stored.append(sequence), add(sequence))
    built.agent.learn(300)
    built.agent.close()
    built.logger.close()
    assert built.agent.system.learner.updates > 0 and built.agent.system.replay.fields[-1] == "legal"
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    losses = [row["learner/loss"] for row in rows if "learner/loss" in row]
    assert losses and np.isfinite(losses).all()
    legal, action, train = (np.stack([s[k] for s in stored]) for k in ("legal", "action", "train"))
    assert np.take_along_axis(legal, action[..., None], -1)[..., 0][train].all()
    assert not legal[train].all()  # GOHR's masks do mask


def register(name, **kwargs):
    if name not in gymnasium.registry:
        gymnasium.register(name, entry_point=lambda **_: MaskedEnv(**kwargs))
    return name


GYM = ("env: {type: gym, id: ENV}\nagent: {type: AGENT, num_envs: 2, batch: 2, length: 5, burn_in: 2, MASK"
       "network: {hidden: [16], lstm: 8}}\nbudget: {steps: 300}\n")


@pytest.mark.parametrize("mask, all_legal", [("mask_actions: true, ", True), ("", False)])
def test_masked_evaluation_plays_legal_moves_only(mask, all_legal, tmp_path):
    """Each legal move returns 1 and an episode has 6: masked evaluation scores 6 every time; unmasked, not."""
    env = register("zoo-test/Masked-v0")
    built = trial(GYM.replace("ENV", env).replace("AGENT", "gdi-i3").replace("MASK", mask), tmp_path)
    returns = built.agent.evaluate(4, seed=5)
    built.agent.close()
    built.logger.close()
    assert (returns == [6.0] * 4) == all_legal


def test_mask_actions_on_an_env_without_masks_is_refused_when_the_agent_is_built(tmp_path):
    text = ("env: {type: gym, id: CartPole-v1}\nagent: {type: gdi-i3, num_envs: 2, batch: 2, length: 5, burn_in: 2, "
            "mask_actions: true, network: {hidden: [16], lstm: 8}}\nbudget: {steps: 100}\n")
    with pytest.raises(ZooError, match="action_mask"):
        trial(text, tmp_path)


def metrics(tmp_path, text):
    built = trial(text, tmp_path)
    built.agent.learn(300)
    returns = built.agent.evaluate(2, seed=5)
    built.agent.close()
    built.logger.close()
    return (tmp_path / "metrics.jsonl").read_text(), returns


@pytest.mark.parametrize("agent", ["gdi-i3", "dice", "lbc"])
def test_masking_with_every_action_legal_changes_no_metric(agent, tmp_path):
    """An env whose masks mark every action legal: masked and unmasked runs log the same numbers, bit for bit."""
    base = GYM.replace("ENV", register("zoo-test/AllLegal-v0", all_legal=True)).replace("AGENT", agent)
    (tmp_path / "off").mkdir()
    (tmp_path / "on").mkdir()
    off = metrics(tmp_path / "off", base.replace("MASK", ""))
    on = metrics(tmp_path / "on", base.replace("MASK", "mask_actions: true, "))
    assert off == on
