"""SubstrateAgent.evaluate: the default mechanism mode is unchanged, and `evaluation: best_region` draws
inside the trained controllers' best regions without touching them, or is refused when the agent is built."""

import json

import pytest
import torch
import zoo_testing
from zoo_learner.state import to_plain

from zoo import ZooError
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text


def trial(agent, tmp_path, extra="", meta=""):
    torch.set_num_threads(1)
    agent_block = f"{{type: {agent}, {zoo_testing.TINY_SUBSTRATE}{extra}}}"
    return zoo_testing.trial(zoo_testing.cartpole_spec(agent_block, steps=200, extra=meta), tmp_path, seed=3)


def states(agent):
    return json.dumps(to_plain([c.state_dict() for c in agent.controllers]))


@pytest.mark.parametrize("agent,extra,returns", [
    ("gdi-i3", "", [9.0, 10.0, 9.0, 9.0]), ("dice", ", evaluation: mechanism", [37.0, 13.0, 22.0, 9.0]),
    ("lbc", "", [37.0, 12.0, 11.0, 37.0]),
])
def test_the_mechanism_mode_returns_what_it_did_before_best_region_existed(agent, extra, returns, tmp_path):
    # GDI's bandits as they were then: over 1/tau itself (its default now searches x = log(1 + 1/tau))
    built = trial(agent, tmp_path, extra, "meta_controller: {type: gdi_bandits}\n" if agent == "gdi-i3" else "")
    assert built.agent.params.evaluation == "mechanism"  # GDI's and LBC's default; DiCE's when asked for
    built.agent.learn(200)
    assert built.agent.evaluate(4, seed=11) == returns
    built.agent.close()
    built.logger.close()


def test_best_region_cycles_over_the_trained_controllers_and_leaves_them_unchanged(tmp_path):
    built = trial("dice", tmp_path, ", controller_scope: per_env, evaluation: best_region")
    agent = built.agent
    agent.learn(200)
    for controller, block in zip(agent.controllers, (10, 40)):  # controller k's best tile: 10, 40
        for bandit in controller.ensembles[0].bandits:
            bandit.smoothing.add(bandit.w, block, 1e6)
    policy, seen = agent.builder.behavior_policy(), []

    def recording(adv, value, behavior):
        if not seen or seen[-1] != float(behavior[0, 0]):
            seen.append(float(behavior[0, 0]))
        return policy(adv, value, behavior)

    agent.builder.behavior_policy = lambda: recording
    before = states(agent)
    returns = agent.evaluate(4, seed=11)
    assert states(agent) == before
    assert [agent.space.coordinates[0].block_of(x) for x in seen] == [10, 40, 10, 40]
    assert agent.evaluate(4, seed=11) == returns and states(agent) == before
    agent.close()
    built.logger.close()


@pytest.mark.parametrize("agent", ["gdi-i3", "lbc"])
def test_best_region_runs_under_gdi_and_lbc(agent, tmp_path):
    built = trial(agent, tmp_path, ", evaluation: best_region")
    built.agent.learn(100)
    before = states(built.agent)
    assert len(built.agent.evaluate(2, seed=5)) == 2 and states(built.agent) == before
    built.agent.close()
    built.logger.close()


@pytest.mark.parametrize("agent,extra", [("dice", ", ablation: random"), ("gdi-i3", ", ablation: random_selection"),
                                         ("lbc", ", ablation: random_selection")])
def test_a_controller_without_a_best_region_is_refused_when_the_agent_is_built(agent, extra, tmp_path):
    with pytest.raises(ZooError) as error:
        trial(agent, tmp_path, extra + ", evaluation: best_region")
    assert str(error.value) == (
        "evaluation: best_region needs a meta-controller with a best region, and 'uniform' has none; use "
        "evaluation: mechanism, or one of these meta-controllers: fixed, gdi_bandits, lbc_bandits, "
        "sliding_window_ucb, thompson, ucb1")


def test_an_unknown_evaluation_mode_is_a_spec_error():
    with pytest.raises(SpecError, match="evaluation"):
        load_spec_text("env: {type: gym, id: CartPole-v1}\nagent: {type: dice, evaluation: greedy}\n"
                       "budget: {steps: 200}\n", get_registry())


def test_dice_evaluates_from_omegas_best_region_by_default_and_its_random_ablation_by_mechanism(tmp_path):
    from zoo_dice.params import DiCEParams

    for preset in ("paper", "cpu_small"):
        assert DiCEParams(preset=preset).evaluation == "auto"
    modes = {}
    for ablation in ("none", "baseline", "random"):
        built = trial("dice", tmp_path / ablation, f", ablation: {ablation}")
        modes[ablation] = built.agent.evaluation
        built.agent.close()
        built.logger.close()
    # Omega's best region; fixed: its one point; uniform (Omega never updated): no best region
    assert modes == {"none": "best_region", "baseline": "best_region", "random": "mechanism"}
    with pytest.raises(ZooError, match="'uniform' has none"):
        trial("dice", tmp_path / "asked", ", ablation: random, evaluation: best_region")


def test_dices_default_evaluation_draws_every_tau_inside_the_shared_omegas_best_block(tmp_path):
    built = trial("dice", tmp_path)  # cpu_small: one Omega shared by the actor's envs
    agent = built.agent
    assert agent.evaluation == "best_region" and len(agent.controllers) == 1
    agent.learn(200)
    for bandit in agent.controllers[0].ensembles[0].bandits:
        bandit.smoothing.add(bandit.w, 33, 1e6)
    policy, seen = agent.builder.behavior_policy(), []

    def recording(adv, value, behavior):
        seen.append(float(behavior[0, 0]))
        return policy(adv, value, behavior)

    agent.builder.behavior_policy = lambda: recording
    before = states(agent)
    agent.evaluate(6, seed=2)
    assert states(agent) == before
    coordinate = agent.space.coordinates[0]
    assert len(set(seen)) == 6 and {coordinate.block_of(x) for x in seen} == {33}  # a fresh tau per episode
    agent.close()
    built.logger.close()


@pytest.mark.parametrize("controller", sorted(get_registry().names("meta_controller")))
def test_dice_under_every_meta_controller_evaluates_from_its_best_region_or_by_mechanism(controller, tmp_path):
    text = (f"{zoo_testing.CARTPOLE}agent: {{type: dice, {zoo_testing.TINY_SUBSTRATE}}}\n"
            f"meta_controller: {{type: {controller}}}\nbudget: {{steps: 200}}\n")
    if controller == "uniform":  # no best region: asking for one is refused, the default falls back
        asked = zoo_testing.spec(text.replace("type: dice,", "type: dice, evaluation: best_region,"))
        with pytest.raises(ZooError, match="'uniform' has none; use evaluation: mechanism"):
            zoo_testing.trial(asked, tmp_path / "asked", seed=3)
    built = zoo_testing.trial(zoo_testing.spec(text), tmp_path, seed=3)
    assert built.agent.evaluation == ("mechanism" if controller == "uniform" else "best_region")
    built.agent.learn(100)
    assert len(built.agent.evaluate(2, seed=5)) == 2
    built.agent.close()
    built.logger.close()
