"""GDI agents through specs: presets, validation messages, any meta-controller, checkpoints, resume, learning.

Calibration of the learning tests (CartPole-v1, cpu_small preset, seed 0, 25,000 steps, mean raw
return of the last 20 training episodes; a random policy gets about 22), since the lr schedule
ends with the budget (before, padded sequences ended it at ~84%): GDI-H3 measured 70.0 (seeds 1
and 2: 182.2 and 97.5), GDI-I3 64.4 (28.2 and 36.2). Thresholds: H3 >= 55, I3 >= 35. With the
earlier schedule H3 measured 172.8, 57.9, 155.4 and I3 46.5, 35.2, 41.5: the spread across seeds
at this budget is wider than the change. H3 acting with int8 weights (actor_precision: int8) measured
153.4, 97.0 and 161.3 on seeds 0-2 (I3: 31.5, 38.4, 34.0); its test keeps H3's threshold.

Why I3 is slow here (measured, not a code bug): CartPole pays 1 per step, so I3's h_log rewards
(1.386 per step, gamma 0.99) give returns of 50-140, while the ~185 Adam updates of this budget
(lr 1e-3) lift V only to about 7 (both I3's head and H3's h_log network). The IMPALA advantage
r + g vs' - V is then biased upward for every action and carries little signal. H3 acts mostly
through its h_pow network, whose returns (0.19 per step) V can fit. The same I3 with h_pow rewards
reached 153, 313 and 131 (seeds 0-2); the paper's loss weights 1/10/10 are kept (with alpha = 1
instead of 10: 135, 152, 26), and so is h_log, which the paper prescribes for I3.
"""

import json

import numpy as np
import pytest
import torch
from scipy.stats import kstest
from zoo_learner.state import to_plain
from zoo_testing import CARTPOLE, TINY_SUBSTRATE, cartpole_spec, trial

from zoo import Interrupted, ZooError, prepare_run, run_trials
from zoo.errors import SpecError
from zoo.registry import get_registry


def test_presets_fill_every_field_and_overrides_merge():
    paper = cartpole_spec("{type: gdi-i3, preset: paper, network: {lstm: 32}}").agent
    assert (paper.num_envs, paper.burn_in, paper.length, paper.batch, paper.gamma) == (160, 40, 80, 64, 0.997)
    assert (paper.pull_every, paper.push_every, paper.rho_bar, paper.c_bar) == (64, 25, 1.05, 1.05)
    assert paper.network.lstm == 32 and paper.network.torso == "impala" and paper.network.head_hidden == 512
    assert paper.optimizer.betas == (0.9, 0.98) and paper.optimizer.warmup == 4000
    small = cartpole_spec("{type: gdi-h3}").agent
    assert (small.preset, small.num_envs, small.length, small.network.lstm) == ("cpu_small", 8, 20, 64)


@pytest.mark.parametrize("agent,message", [
    ("{type: gdi-i3, preset: huge}", "preset"),
    ("{type: gdi-i3, burn_in: -1}", "burn_in"),
    ("{type: gdi-i3, network: {lstn: 3}}", "lstn"),
    ("{type: gdi-h3, ablation: random}", "ablation"),
])
def test_bad_params_are_one_clear_message(agent, message):
    with pytest.raises(SpecError) as error:
        cartpole_spec(agent)
    assert message in str(error.value) and len(error.value.problems) == 1


@pytest.mark.parametrize("controller", ["gdi_bandits", "fixed", "uniform", "ucb1", "sliding_window_ucb", "thompson"])
def test_any_meta_controller_runs_under_gdi(controller, tmp_path):
    built = trial(cartpole_spec(f"{{type: gdi-i3, {TINY_SUBSTRATE}}}",
                       extra=f"meta_controller: {{type: {controller}}}\n"), tmp_path)
    built.agent.learn(300)
    assert built.agent.steps >= 300 and built.agent.system.learner.updates > 0
    assert type(built.agent.controllers[0]).__module__.startswith("zoo_bandits")
    built.agent.close()
    built.logger.close()


def test_ablations_fix_their_controller(tmp_path):
    with pytest.raises(ZooError, match="remove the meta_controller block"):
        trial(cartpole_spec("{type: gdi-i3, ablation: random_selection}", extra="meta_controller: {type: ucb1}\n"),
              tmp_path)
    built = trial(cartpole_spec("{type: gdi-i3, ablation: fixed_selection, num_envs: 2}"), tmp_path)
    assert all(c.sample().value.tolist() == [1.0, 0.0, 1.0] for c in built.agent.controllers)
    built.agent.close()


SMALL = f"{{type: gdi-h3, {TINY_SUBSTRATE}}}"


def test_checkpoint_restores_everything(tmp_path):
    built = trial(cartpole_spec(SMALL), tmp_path / "a")
    built.agent.learn(400)
    (tmp_path / "ckpt").mkdir()
    built.agent.save(tmp_path / "ckpt")
    other = trial(cartpole_spec(SMALL), tmp_path / "b", seed=0)
    other.agent.load(tmp_path / "ckpt")
    a, b = built.agent, other.agent
    assert (a.steps, a.episodes, a.system.learner.updates) == (b.steps, b.episodes, b.system.learner.updates)
    for x, y in zip(a.system.learner.net.state_dict().values(), b.system.learner.net.state_dict().values()):
        assert torch.equal(x, y)
    assert len(a.system.replay) == len(b.system.replay)
    assert a.system.learner.optimizer.state_dict()["state"].keys() == b.system.learner.optimizer.state_dict()["state"].keys()
    for ca, cb in zip(a.controllers, b.controllers):  # bandit weights and counts (b has since drawn new episodes)
        assert json.dumps(to_plain(ca.state_dict()["bandits"])) == json.dumps(to_plain(cb.state_dict()["bandits"]))
    assert sum(np.sum(bandit["N"]) for c in b.controllers for e in c.state_dict()["bandits"] for bandit in e) > 0
    assert a.system.rng.random() == b.system.rng.random()
    b.learn(200)
    assert b.steps >= a.steps + 200
    for built_ in (built, other):
        built_.agent.close()


def test_same_seed_same_numbers(tmp_path):
    runs = []
    for k in range(2):
        built = trial(cartpole_spec(SMALL), tmp_path / str(k))
        built.agent.learn(300)
        built.agent.close()
        built.logger.close()
        runs.append((tmp_path / str(k) / "metrics.jsonl").read_text())
    assert runs[0] == runs[1] and "learner/loss" in runs[0]


def test_zoo_run_resumes_mid_run_exactly_on_gym_vector_envs(tmp_path):
    def run(name: str, interrupt: bool) -> list[dict]:
        source = tmp_path / f"{name}.yaml"
        source.write_text(f"{CARTPOLE}agent: {SMALL}\nmeta_controller: {{type: thompson}}\n"
                          "budget: {steps: 600, checkpoint_every: 200}\n")
        folder = prepare_run(source, get_registry(), tmp_path / name)
        if interrupt:
            with pytest.raises(Interrupted):
                run_trials(folder.path, [0], should_stop=lambda: True)
            checkpoints = sorted((folder.trial_dir(0) / "checkpoints").iterdir())
            assert len(checkpoints) == 1 and 0 < int(checkpoints[0].name.split("-")[1]) < 600
        (result,) = run_trials(folder.path, [0])
        assert result["steps"] >= 600
        return [json.loads(line) for line in (folder.trial_dir(0) / "metrics.jsonl").read_text().splitlines()]

    # CartPole in a SyncVectorEnv: the CartPoles' episodes in progress are restored by replaying their actions
    assert run("resumed", True) == run("whole", False)


@pytest.mark.slow  # a learning check, four agents and precisions
@pytest.mark.parametrize("agent,precision,threshold",
                         [("gdi-h3", "float32", 55.0), ("gdi-i3", "float32", 35.0), ("gdi-h3", "int8", 55.0)])
def test_learns_cartpole(agent, precision, threshold, tmp_path):
    built = trial(cartpole_spec(f"{{type: {agent}, actor_precision: {precision}}}", steps=25_000), tmp_path)
    built.agent.learn(25_000)
    built.agent.close()
    built.logger.close()
    rows = [json.loads(line) for line in (tmp_path / "metrics.jsonl").read_text().splitlines()]
    returns = [r["episode_return"] for r in rows if "episode_return" in r]
    diagnostics = [r for r in rows if "learner/rho" in r]
    assert np.mean(returns[-20:]) >= threshold
    assert all(np.isfinite(r["learner/loss"]) for r in diagnostics)
    # the bandits' last 100 choices are not uniform over the behavior space (KS test on each coordinate;
    # seed 0 measured, for H3, eps mean 0.31 and std 0.24 against 0.5 and 0.29 when uniform)
    p_values = []
    for coordinate in built.agent.space.coordinates:
        chosen = [r[f"behavior/{coordinate.name}"] for r in rows if f"behavior/{coordinate.name}" in r][-100:]
        p_values.append(kstest(chosen, "uniform", args=(coordinate.low, coordinate.high - coordinate.low)).pvalue)
    assert min(p_values) < 1e-3
