"""Every constructor argument of the SB3 and sb3-contrib algorithms, and of their policies, is a field of the agent's
params, with the library's default, accepted with a value of its type and refused misspelt or with a wrong type."""

from __future__ import annotations

import importlib
import inspect
import re
import typing

import pytest
import torch
from zoo_sb3.arguments import named_class
from zoo_sb3.params import ZOO_OWNED
from zoo_sb3.plugin import ALGORITHMS

from zoo import build_trial
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text

#: the zoo's own fields of every SB3 agent: its vector env's wrappers
ZOO_FIELDS = {"n_envs", "normalize_observations", "normalize_rewards", "frame_stack"}
#: policy arguments the algorithm passes itself (use_sde follows the algorithm's use_sde)
ALGORITHM_SET = {"self", "observation_space", "action_space", "lr_schedule", "use_sde"}
#: the zoo's defaults that differ from the library's
ZOO_DEFAULTS = {"device": "cpu"}
CLASS_BASES = {"activation_fn": torch.nn.Module, "optimizer_class": torch.optim.Optimizer}


def _algorithm(name: str) -> type:
    module, class_name, _, _ = ALGORITHMS[name]
    return getattr(importlib.import_module(module), class_name)


def _arguments(function) -> dict[str, inspect.Parameter]:
    return dict(inspect.signature(function).parameters)


def _policy_class(name: str) -> type:
    algorithm, params = _algorithm(name), ALGORITHMS[name][2]
    return algorithm.policy_aliases[params.model_fields["policy"].default]


def _spec(agent: str, env: str = "CartPole-v1"):
    return load_spec_text(f"env: {{type: gym, id: {env}}}\nagent: {agent}\nbudget: {{steps: 100}}\n", get_registry())


def _refusal(agent: str) -> str:
    with pytest.raises(SpecError) as caught:
        _spec(agent)
    return str(caught.value)


def _probes(annotation: str, name: str) -> tuple[list[str], str]:
    """YAML values of the SB3 `annotation` that the field must accept, and one it must refuse."""
    if name == "net_arch":
        return ["[8, 8]"], "[8, eight]"
    if name == "action_noise":
        return ["{type: ornstein-uhlenbeck, std: 0.3}"], "0.3"
    if name == "train_freq":
        return ["3", "[2, episode]"], "[2, epoch]"
    if name == "activation_fn":
        return ["nn.ReLU", "relu", "leaky_relu"], "relux"
    if name == "optimizer_class":
        return ["adam", "th.optim.SGD", "RMSpropTFLike"], "Adamm"
    if name == "features_extractor_class":
        return ["flatten_extractor", "NatureCNN"], "Flatten"
    if name == "device":
        return ["auto", "cuda"], "tpu"
    if "Callable" in annotation:  # a schedule
        return ["0.1", "lin_0.1", "lin_1e-3"], "lin_x"
    if annotation.startswith("type["):  # a class by name, written in snake case: replay_buffer
        written = re.sub(r"(?<!^)(?=[A-Z])", "_", annotation[5:].split("]")[0].rsplit(".", 1)[-1]).lower()
        return [written], "NoSuchBuffer"
    if annotation.startswith("dict"):
        return ["{eps: 0.001}"], "3"
    if annotation == "<class 'bool'>":
        return ["true", "false"], "3"
    if annotation.startswith(("<class 'int'>", "int")):
        return ["3"], "three"
    if "float" in annotation:  # floats, and SAC's str | float (ent_coef, target_entropy: 'auto')
        return ["0.25"], "quarter"
    raise AssertionError(f"no probe for {name}: {annotation}")


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_params_hold_every_constructor_argument_with_its_default(name):
    algorithm, params = _algorithm(name), ALGORITHMS[name][2]
    arguments = {arg: p for arg, p in _arguments(algorithm.__init__).items() if arg not in ("self", *ZOO_OWNED)}
    assert set(params.model_fields) - ZOO_FIELDS == set(arguments)
    for arg, parameter in arguments.items():
        if parameter.default is not inspect.Parameter.empty and arg != "policy_kwargs":
            assert params.model_fields[arg].default == ZOO_DEFAULTS.get(arg, parameter.default), arg
    assert params.model_fields["policy"].default in algorithm.policy_aliases


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_policy_kwargs_hold_every_argument_of_the_policy(name):
    kwargs = ALGORITHMS[name][2].model_fields["policy_kwargs"].annotation
    assert set(kwargs.model_fields) == set(_arguments(_policy_class(name).__init__)) - ALGORITHM_SET


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_argument_takes_a_value_of_its_type_and_refuses_a_misspelling_or_a_wrong_type(name):
    arguments = _arguments(_algorithm(name).__init__)
    for arg, parameter in arguments.items():
        if arg in ("self", "policy", "policy_kwargs", *ZOO_OWNED):
            continue
        good, bad = _probes(str(parameter.annotation), arg)
        if name == "maskable-ppo" and arg == "rollout_buffer_class":
            good = ["maskable_" + value for value in good]
        for value in good:
            _spec(f"{{type: {name}, {arg}: {value}}}")
        assert f"agent.{arg}" in _refusal(f"{{type: {name}, {arg}: {bad}}}"), arg
        assert f"(did you mean '{arg}'?)" in _refusal(f"{{type: {name}, {arg}x: {good[0]}}}"), arg
    for policy in _algorithm(name).policy_aliases:
        assert _spec(f"{{type: {name}, policy: {policy}}}").agent.policy == policy
    assert "agent.policy" in _refusal(f"{{type: {name}, policy: MLPPolicy}}")


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_each_policy_argument_takes_a_value_of_its_type_and_refuses_a_misspelling_or_a_wrong_type(name):
    for arg, parameter in _arguments(_policy_class(name).__init__).items():
        if arg in ALGORITHM_SET:
            continue
        good, bad = _probes(str(parameter.annotation), arg)
        for value in good:
            _spec(f"{{type: {name}, policy_kwargs: {{{arg}: {value}}}}}")
        assert f"agent.policy_kwargs.{arg}" in _refusal(f"{{type: {name}, policy_kwargs: {{{arg}: {bad}}}}}"), arg
        assert f"(did you mean '{arg}'?)" in _refusal(f"{{type: {name}, policy_kwargs: {{{arg}x: {good[0]}}}}}"), arg


def _class_of(annotation) -> type:
    """C of an annotation ``type[C]`` or ``type[C] | None``."""
    if typing.get_origin(annotation) is not type:
        annotation = next(arg for arg in typing.get_args(annotation) if arg is not type(None))
    return typing.get_args(annotation)[0]


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_class_a_spec_may_name_is_the_kind_sb3_expects(name):
    """Activations, optimizers, feature extractors and buffers by name resolve to subclasses of the annotated type."""
    params = ALGORITHMS[name][2]
    fields = {**params.model_fields, **params.model_fields["policy_kwargs"].annotation.model_fields}
    annotations = {**_arguments(_algorithm(name).__init__), **_arguments(_policy_class(name).__init__)}
    checked = 0
    for arg, field in fields.items():
        if not arg.endswith(("_class", "_fn")):
            continue
        literal = next(a for a in typing.get_args(typing.get_args(field.annotation)[0]) if typing.get_origin(a) is typing.Literal)
        base = CLASS_BASES.get(arg) or _class_of(annotations[arg].annotation)
        for class_name in typing.get_args(literal):
            assert issubclass(named_class(arg, class_name), base), (arg, class_name)
            checked += 1
    assert checked >= 25


@pytest.mark.parametrize(("written", "read"), [("nn.ReLU", "ReLU"), ("relu", "ReLU"), ("th.nn.LeakyReLU", "LeakyReLU"),
                                               ("leaky_relu", "LeakyReLU"), ("Tanh", "Tanh")])
def test_activations_are_read_as_rl_zoo_writes_them(written, read):
    assert _spec(f"{{type: ppo, policy_kwargs: {{activation_fn: {written}}}}}").agent.policy_kwargs.activation_fn == read


def test_a_misspelt_class_name_is_refused_with_the_closest_name():
    message = _refusal("{type: ppo, policy_kwargs: {activation_fn: nn.Relu6x}}")
    assert "unknown activation 'nn.Relu6x' (did you mean 'ReLU6'?)" in message
    assert "unknown optimizer 'Adamm' (did you mean 'Adam'?)" in _refusal("{type: ppo, policy_kwargs: {optimizer_class: Adamm}}")


def test_a_boolean_is_not_a_layer_size_or_a_frequency():
    assert "agent.policy_kwargs.net_arch.1: Input should be a valid integer" in _refusal("{type: ppo, policy_kwargs: {net_arch: [8, true]}}")
    assert "agent.policy_kwargs.net_arch.vf: item 0: expected a whole number" in _refusal("{type: ppo, policy_kwargs: {net_arch: {vf: [true]}}}")
    assert "agent.train_freq: Input should be a valid integer" in _refusal("{type: dqn, train_freq: true}")
    assert "agent.train_freq.0: Input should be a valid integer" in _refusal("{type: dqn, train_freq: [true, step]}")


@pytest.mark.parametrize("arg", sorted(ZOO_OWNED))
def test_the_arguments_the_zoo_sets_are_refused_with_where_to_set_them(arg):
    assert f"'{arg}' is set by the zoo, not in the agent block; set {ZOO_OWNED[arg]}" in _refusal(f"{{type: ppo, {arg}: 1}}")


def _model(tmp_path, agent: str, env: str = "CartPole-v1"):
    built = build_trial(_spec(agent, env), get_registry(), seed=0, trial=0, directory=tmp_path)
    return built


def test_the_settings_reach_the_sb3_model(tmp_path):
    built = _model(tmp_path / "ppo", "{type: ppo, clip_range: lin_0.2, clip_range_vf: 0.5, policy_kwargs: {net_arch: {pi: [8], "
                   "vf: [16, 4]}, activation_fn: nn.ReLU, ortho_init: false, optimizer_class: RMSprop, optimizer_kwargs: "
                   "{eps: 0.001}}, rollout_buffer_class: RolloutBuffer, stats_window_size: 7}")
    model = built.agent.model
    assert model.clip_range(0.5) == pytest.approx(0.1) and model.clip_range_vf(0.3) == 0.5
    policy = model.policy
    assert policy.activation_fn is torch.nn.ReLU and not policy.ortho_init
    assert [m.out_features for m in policy.mlp_extractor.policy_net if isinstance(m, torch.nn.Linear)] == [8]
    assert [m.out_features for m in policy.mlp_extractor.value_net if isinstance(m, torch.nn.Linear)] == [16, 4]
    assert isinstance(policy.optimizer, torch.optim.RMSprop) and policy.optimizer.defaults["eps"] == 0.001
    assert model._stats_window_size == 7
    built.agent.close()
    dqn = _model(tmp_path / "dqn", "{type: dqn, train_freq: [2, episode], n_steps: 3}").agent
    assert (dqn.model.train_freq.frequency, dqn.model.train_freq.unit.value) == (2, "episode") and dqn.model.n_steps == 3
    dqn.close()
    sac = _model(tmp_path / "sac", "{type: sac, use_sde: true, ent_coef: auto_0.5, action_noise: {type: ornstein-uhlenbeck, "
                 "std: 0.3}, policy_kwargs: {net_arch: {pi: [8], qf: [16]}, log_std_init: -2, n_critics: 3}}", "Pendulum-v1").agent
    model = sac.model
    assert type(model.action_noise).__name__ == "OrnsteinUhlenbeckActionNoise" and model.action_noise._sigma[0] == 0.3
    assert model.use_sde and len(model.critic.q_networks) == 3 and model.log_ent_coef.exp().item() == pytest.approx(0.5)
    assert model.actor.latent_pi[0].out_features == 8 and model.critic.q_networks[0][0].out_features == 16
    sac.close()
