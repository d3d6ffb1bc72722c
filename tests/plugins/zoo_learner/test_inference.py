"""The int8 acting copy (actor_precision: int8): what gets quantized, how close it stays to the float
network, that actors store the probabilities of the copy that acted, and that a new weight version or a
checkpoint rebuilds it."""

import gymnasium
import numpy as np
import pytest
import torch
from learner_stubs import PixelEnv, RecordingController
from torch.ao.nn.quantized import dynamic as quantized
from zoo_learner.actor import VectorActor
from zoo_learner.inference import Int8ConvStack, acting_network
from zoo_learner.networks import NetworkParams, build_network, scale_obs
from zoo_testing import TINY_SUBSTRATE, cartpole_spec, trial

PARAMS = NetworkParams(torso="minatar", embedding=64, lstm=16)


def pixel_net(seed: int = 0):
    torch.manual_seed(seed)
    return build_network(PARAMS, (1, 6, 6), 3, heads=2)


def test_float32_acts_with_the_network_itself():
    net = pixel_net()
    assert acting_network(net, "float32") is net


def test_int8_quantizes_linear_and_lstm_layers_and_calibrated_pixel_convs_of_a_copy():
    net = pixel_net()
    before = {k: v.clone() for k, v in net.state_dict().items()}
    copy = acting_network(net, "int8")
    assert isinstance(copy.torso[1], quantized.Linear) and isinstance(copy.core, quantized.LSTMCell)
    assert isinstance(copy.adv_head, quantized.Linear) and isinstance(copy.value_head, quantized.Linear)
    assert isinstance(copy.torso[0][0], torch.nn.Conv2d)  # no pixels to calibrate on: convolutions stay float
    pixels = torch.randint(0, 256, (8, 1, 6, 6), dtype=torch.uint8)
    assert isinstance(acting_network(net, "int8", pixels).torso[0], Int8ConvStack)
    group = build_network(PARAMS, (1, 6, 6), 3, heads=2, separate=True)  # LBC's members: each calibrated
    assert all(isinstance(member.torso[0], Int8ConvStack) for member in acting_network(group, "int8", pixels).nets)
    assert isinstance(acting_network(net, "int8", pixels.float()).torso[0][0], torch.nn.Conv2d)  # not pixels
    torch.manual_seed(0)
    impala = build_network(NetworkParams(torso="impala", impala_channels=[4], impala_blocks=1, embedding=8, lstm=4),
                           (1, 6, 6), 3)
    assert not any(isinstance(m, Int8ConvStack) for m in acting_network(impala, "int8", pixels).modules())
    assert type(net.torso[1]) is torch.nn.Linear and type(net.core) is torch.nn.LSTMCell
    assert all(torch.equal(before[k], v) for k, v in net.state_dict().items())


def test_pixels_enter_the_int8_convolutions_exactly():
    identity = torch.nn.Conv2d(1, 1, 1)
    with torch.no_grad():
        identity.weight.fill_(1.0)
        identity.bias.zero_()
    pixels = torch.arange(256, dtype=torch.uint8).reshape(4, 1, 8, 8)
    stack = Int8ConvStack([identity], pixels)  # output scale 1/255 from the calibration's largest pixel
    out = stack(pixels)  # every pixel lands on its own level: p / 255, up to the float product's last bit
    assert torch.equal((out * 255).round().to(torch.uint8), pixels.flatten(1))
    assert torch.allclose(out, scale_obs(pixels).flatten(1), rtol=1e-6, atol=0)
    with pytest.raises(TypeError, match="raw uint8 pixels"):
        stack(scale_obs(pixels))


def test_int8_policy_is_close_to_the_float_policy_but_not_equal():
    net = pixel_net()
    calibration, obs = (torch.randint(0, 256, (64, 1, 6, 6), dtype=torch.uint8) for _ in range(2))
    copy = acting_network(net, "int8", calibration)
    state = net.initial_state(64)
    with torch.inference_mode():
        (adv, value), next_state = net.step(obs, state)
        (qadv, qvalue), qnext = copy.step(obs, state)
    p, q = torch.softmax(adv, -1), torch.softmax(qadv, -1)
    # measured on a batch other than the calibration one (3 seeds): max |p - q| 3-4e-4, state 1.7-2.8e-3,
    # value about 1e-3; the bounds allow 20-50x that
    assert 0 < (p - q).abs().max() < 0.01
    assert (next_state - qnext).abs().max() < 0.05 and (value - qvalue).abs().max() < 0.05


def make_int8_actor(server, sequences):
    net = pixel_net()
    actor = VectorActor(gymnasium.vector.SyncVectorEnv([PixelEnv, PixelEnv]), net,
                        lambda adv, value, behavior: torch.log_softmax(adv[:, 0], -1), [RecordingController()],
                        sequences.append, burn_in=1, length=2, pull=server, pull_every=4,
                        generator=torch.Generator().manual_seed(0), precision="int8")
    actor.reset(seed=0)
    return actor


def test_actor_stores_the_int8_policy_and_requantizes_new_versions():
    versions = [pixel_net(seed) for seed in range(3)]
    pulls = []

    def server():  # a new version at every pull
        pulls.append(len(pulls))
        return len(pulls) - 1, versions[min(len(pulls) - 1, 2)].state_dict()

    sequences, calls = [], []
    actor = make_int8_actor(server, sequences)
    first_pixels = torch.from_numpy(actor.obs.copy())  # version 0 was calibrated on the observations at reset
    assert isinstance(actor.acting.torso[0], Int8ConvStack)
    acting_step = actor.acting.step

    def recording_step(obs, state):
        (adv, value), next_state = acting_step(obs, state)
        calls.append((obs.clone(), state.clone(), adv.clone()))
        return (adv, value), next_state

    actor.acting.step = recording_step
    actor.run(4)  # the pull after vector step 4 brings version 1
    # every call was version 0's int8 copy; activations are quantized per batch, so compare whole batches
    reference = acting_network(versions[0], "int8", first_pixels)
    acted = []
    with torch.inference_mode():
        for obs, state, adv in calls:
            assert torch.equal(reference.step(obs, state)[0][0], adv)
            assert not torch.allclose(versions[0].step(obs, state)[0][0], adv, atol=1e-6)
            acted += [tuple(row) for row in torch.log_softmax(adv[:, 0], -1).exp().numpy()]  # as the actor
    stored = [tuple(row) for s in sequences for row in s["mu"][s["valid"]]]
    assert stored and set(stored) <= set(acted)
    assert actor.version == 1  # calibrated on the observations of the pull
    obs = torch.randint(0, 256, (8, 1, 6, 6), dtype=torch.uint8)
    with torch.inference_mode():
        (acting, _), _ = actor.acting.step(obs, actor.net.initial_state(8))
        (expected, _), _ = acting_network(versions[1], "int8", torch.from_numpy(actor.obs)).step(
            obs, actor.net.initial_state(8))
    assert torch.equal(acting, expected)


def gdi_trial(directory):
    agent = f"{{type: gdi-i3, {TINY_SUBSTRATE}, pull_every: 3, push_every: 2, actor_precision: int8}}"
    return trial(cartpole_spec(agent), directory)


def test_a_checkpoint_restores_the_int8_actor(tmp_path):
    a = gdi_trial(tmp_path / "a").agent
    a.learn(300)
    assert a.system.learner.updates > 0 and a.system.actor.version > 0
    (tmp_path / "ckpt").mkdir()
    a.save(tmp_path / "ckpt")
    b = gdi_trial(tmp_path / "b").agent
    b.load(tmp_path / "ckpt")
    assert b.system.actor.version == a.system.actor.version
    obs = torch.randn(16, 4)
    state = a.system.actor.net.initial_state(16)
    with torch.inference_mode():
        (adv_a, _), _ = a.system.actor.acting.step(obs, state)
        (adv_b, _), _ = b.system.actor.acting.step(obs, state)
    assert isinstance(b.system.actor.acting.core, quantized.LSTMCell) and torch.equal(adv_a, adv_b)


def test_actor_state_restores_the_int8_calibration_and_continues_exactly():
    versions = [pixel_net(seed) for seed in range(4)]

    class Server:  # a new version at every pull
        pulls = 0

        def __call__(self):
            self.pulls += 1
            return self.pulls - 1, versions[min(self.pulls - 1, 3)].state_dict()

    def scales(actor):
        return [scale for _, scale in actor.acting.torso[0].layers]

    first, second = Server(), Server()
    a_sequences, b_sequences = [], []
    a = make_int8_actor(first, a_sequences)
    a.run(6)  # version 1 was calibrated on the observations of vector step 4
    state = a.state_dict()
    b = make_int8_actor(second, b_sequences)
    second.pulls = first.pulls
    b.controllers[0].load_state_dict(a.controllers[0].state_dict())
    b.generator.set_state(a.generator.get_state())
    b.load_state_dict(state, a.net.state_dict())
    assert b.version == a.version == 1 and scales(b) == scales(a)
    assert not (b.calibration == b.obs).all()  # the observations of the pull, not those of the checkpoint
    a_sequences.clear()
    a.run(9)
    b.run(9)
    assert a_sequences and len(a_sequences) == len(b_sequences)
    for x, y in zip(a_sequences, b_sequences):
        assert x.keys() == y.keys() and all(np.array_equal(x[k], y[k]) for k in x)
