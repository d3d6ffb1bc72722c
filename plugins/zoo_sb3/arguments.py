"""The keyword arguments of an SB3 constructor from validated params: classes by name, schedules, noise."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np

from .params import LINEAR_SCHEDULE

#: params fields that configure the zoo's vector env, not the algorithm
ENV_FIELDS = ("type", "n_envs", "normalize_observations", "normalize_rewards", "frame_stack")
#: fields whose values are fractions of the budget still to go times X when written 'lin_X'
SCHEDULES = ("learning_rate", "clip_range", "clip_range_vf")
#: class name -> module, for every class a spec may name
CLASS_MODULES = {
    **dict.fromkeys(("FlattenExtractor", "NatureCNN", "CombinedExtractor"), "stable_baselines3.common.torch_layers"),
    **dict.fromkeys(("ReplayBuffer", "DictReplayBuffer", "RolloutBuffer", "DictRolloutBuffer"), "stable_baselines3.common.buffers"),
    "HerReplayBuffer": "stable_baselines3.her.her_replay_buffer",
    **dict.fromkeys(("MaskableRolloutBuffer", "MaskableDictRolloutBuffer"), "sb3_contrib.common.maskable.buffers"),
    "RMSpropTFLike": "stable_baselines3.common.sb2_compat.rmsprop_tf_like",
}
CLASS_FIELDS = ("activation_fn", "optimizer_class", "features_extractor_class", "replay_buffer_class", "rollout_buffer_class")


def schedule(value: float | str):
    """A constant, or for ``lin_X`` a function of the fraction of the budget still to go: X times that fraction."""
    if isinstance(value, str):
        initial = float(LINEAR_SCHEDULE.fullmatch(value).group(1))
        return lambda progress_remaining: progress_remaining * initial
    return value


def named_class(field: str, name: str) -> type:
    """The class a spec names in `field`: torch.nn's activations, torch.optim's optimizers, SB3's others."""
    if field == "activation_fn":
        module = "torch.nn"
    elif field == "optimizer_class" and name not in CLASS_MODULES:
        module = "torch.optim"
    else:
        module = CLASS_MODULES[name]
    return getattr(importlib.import_module(module), name)


def policy_kwargs(params: Any) -> dict[str, Any] | None:
    """SB3's policy_kwargs: only the arguments the spec sets, classes resolved."""
    kwargs = params.policy_kwargs.model_dump(exclude_none=True)
    for name in CLASS_FIELDS:
        if name in kwargs:
            kwargs[name] = named_class(name, kwargs[name])
    return kwargs or None


def constructor_arguments(params: Any, action_space) -> dict[str, Any]:
    """Every argument of the algorithm's constructor that the params set, except policy and env."""
    arguments = params.model_dump(exclude={*ENV_FIELDS, "policy", "policy_kwargs", "action_noise"})
    for name in SCHEDULES:
        if name in arguments and arguments[name] is not None:
            arguments[name] = schedule(arguments[name])
    for name in CLASS_FIELDS:
        if arguments.get(name) is not None:
            arguments[name] = named_class(name, arguments[name])
    if isinstance(arguments.get("train_freq"), (list, tuple)):
        arguments["train_freq"] = tuple(arguments["train_freq"])
    noise = getattr(params, "action_noise", None)
    if noise is not None:
        from stable_baselines3.common.noise import NormalActionNoise, OrnsteinUhlenbeckActionNoise

        kind = NormalActionNoise if noise.type == "normal" else OrnsteinUhlenbeckActionNoise
        arguments["action_noise"] = kind(np.zeros(action_space.shape), np.full(action_space.shape, noise.std))
    arguments["policy_kwargs"] = policy_kwargs(params)
    return arguments
