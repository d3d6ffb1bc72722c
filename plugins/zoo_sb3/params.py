"""Validated hyperparameters of the stable-baselines3 and sb3-contrib agents (the libraries' defaults unless noted)."""

from __future__ import annotations

import re
from typing import Annotated, Literal

from pydantic import AfterValidator, Field

from zoo import Params

Activation = Literal["tanh", "relu", "elu", "leaky_relu"]
FeedForwardPolicy = Literal["MlpPolicy", "CnnPolicy", "MultiInputPolicy"]
RecurrentPolicy = Literal["MlpLstmPolicy", "CnnLstmPolicy", "MultiInputLstmPolicy"]

#: a learning rate that falls linearly to 0 over the trial's budget, written as rl-baselines3-zoo does
LINEAR_SCHEDULE = re.compile(r"lin_([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)")


def _schedule(value: float | str) -> float | str:
    if isinstance(value, str):
        match = LINEAR_SCHEDULE.fullmatch(value)
        if match is not None and 0 < float(match.group(1)) <= 1:
            return value
        try:
            value = float(value)  # YAML 1.1 reads 3e-4 (no dot) as a string
        except ValueError:
            raise ValueError(f"a learning rate is a number in (0, 1] or 'lin_<initial>' such as 'lin_3e-4' (given {value!r})") from None
    if not 0 < value <= 1:
        raise ValueError(f"a learning rate is in (0, 1] (given {value})")
    return value


LearningRate = Annotated[float | str, AfterValidator(_schedule)]


def learning_rate_schedule(value: float | str):
    """SB3's learning rate: a constant, or for ``lin_X`` X times the fraction of the budget still to go."""
    if isinstance(value, str):
        initial = float(LINEAR_SCHEDULE.fullmatch(value).group(1))
        return lambda progress_remaining: progress_remaining * initial
    return value


class PolicyParams(Params):
    """The network: hidden layer sizes and activation (SB3's policy_kwargs)."""

    net_arch: list[int] | None = Field(default=None, description="hidden layer sizes (SB3's default if unset)")
    activation: Activation | None = Field(default=None, description="activation function (SB3's default if unset)")


class CommonParams(Params):
    policy: FeedForwardPolicy = Field(default="MlpPolicy", description="SB3 policy class: MLP, CNN (images) or multi-input (dict observations)")
    policy_kwargs: PolicyParams = Field(default_factory=PolicyParams)
    gamma: float = Field(default=0.99, gt=0, le=1, description="discount factor")
    n_envs: int = Field(default=1, ge=1, le=1024, description="copies of the env stepped together")
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="cpu", description="torch device; 'auto' takes CUDA when present (what ran is written to the trial's sb3.json)")
    normalize_observations: bool = Field(default=False, description="VecNormalize: scale observations by running mean and std")
    normalize_rewards: bool = Field(default=False, description="VecNormalize: scale rewards by the running std of the return")
    frame_stack: int = Field(default=1, ge=1, le=64, description="VecFrameStack: the last N observations stacked (1: none)")


class OnPolicyParams(CommonParams):
    n_steps: int = Field(default=2048, ge=1, le=10**7, description="steps per env per rollout")
    gae_lambda: float = Field(default=0.95, ge=0, le=1, description="GAE's lambda (1: Monte Carlo advantages)")
    ent_coef: float = Field(default=0.0, ge=0, le=10, description="entropy bonus coefficient")
    vf_coef: float = Field(default=0.5, ge=0, le=10, description="value loss coefficient")
    max_grad_norm: float = Field(default=0.5, gt=0, description="gradient clipping norm")


class PPOParams(OnPolicyParams):
    """Proximal Policy Optimization."""

    learning_rate: LearningRate = Field(default=3e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    batch_size: int = Field(default=64, ge=1, le=10**7, description="minibatch size")
    n_epochs: int = Field(default=10, ge=1, le=1000, description="passes over each rollout")
    clip_range: float = Field(default=0.2, gt=0, le=10, description="PPO's clipping of the probability ratio")
    normalize_advantage: bool = Field(default=True, description="standardize advantages per minibatch")
    target_kl: float | None = Field(default=None, gt=0, description="stop an update's epochs early past this KL divergence")


class MaskablePPOParams(PPOParams):
    """sb3-contrib's MaskablePPO: PPO that samples only the actions the env's action_masks() allows."""


class RecurrentPPOParams(PPOParams):
    """sb3-contrib's RecurrentPPO: PPO with an LSTM in the policy and value networks."""

    policy: RecurrentPolicy = Field(default="MlpLstmPolicy", description="sb3-contrib LSTM policy class")
    n_steps: int = Field(default=128, ge=1, le=10**7, description="steps per env per rollout")
    batch_size: int = Field(default=128, ge=1, le=10**7, description="minibatch size (sequences are kept whole)")


class A2CParams(OnPolicyParams):
    """Advantage Actor-Critic."""

    learning_rate: LearningRate = Field(default=7e-4, description="RMSprop step size, or 'lin_X' falling linearly from X to 0")
    n_steps: int = Field(default=5, ge=1, le=10**7, description="steps per env per update")
    gae_lambda: float = Field(default=1.0, ge=0, le=1, description="GAE's lambda (1: Monte Carlo advantages)")
    use_rms_prop: bool = Field(default=True, description="RMSprop (True) or Adam (False)")
    normalize_advantage: bool = Field(default=False, description="standardize advantages per update")


class OffPolicyParams(CommonParams):
    buffer_size: int = Field(default=1_000_000, ge=1, le=10**8, description="replay buffer capacity (transitions)")
    learning_starts: int = Field(default=100, ge=0, description="steps of experience collected before the first update")
    train_freq: int = Field(default=1, ge=1, description="env steps between updates")
    gradient_steps: int = Field(default=1, ge=-1, description="gradient steps per update (-1: as many as env steps)")


class DQNParams(OffPolicyParams):
    """Deep Q-Network."""

    learning_rate: LearningRate = Field(default=1e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    batch_size: int = Field(default=32, ge=1, le=10**6, description="minibatch size")
    tau: float = Field(default=1.0, gt=0, le=1, description="target network update coefficient (1: hard copy)")
    train_freq: int = Field(default=4, ge=1, description="env steps between updates")
    target_update_interval: int = Field(default=10_000, ge=1, description="env steps between target network updates")
    exploration_fraction: float = Field(default=0.1, gt=0, le=1, description="share of the budget over which epsilon falls")
    exploration_initial_eps: float = Field(default=1.0, ge=0, le=1, description="epsilon at the start")
    exploration_final_eps: float = Field(default=0.05, ge=0, le=1, description="epsilon after exploration_fraction")
    max_grad_norm: float = Field(default=10.0, gt=0, description="gradient clipping norm")


class QRDQNParams(DQNParams):
    """sb3-contrib's QR-DQN: DQN learning quantiles of the return."""

    learning_rate: LearningRate = Field(default=5e-5, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    exploration_fraction: float = Field(default=0.005, gt=0, le=1, description="share of the budget over which epsilon falls")
    exploration_final_eps: float = Field(default=0.01, ge=0, le=1, description="epsilon after exploration_fraction")
    max_grad_norm: float | None = Field(default=None, gt=0, description="gradient clipping norm (none by default)")


class ContinuousParams(OffPolicyParams):
    batch_size: int = Field(default=256, ge=1, le=10**6, description="minibatch size")
    tau: float = Field(default=0.005, gt=0, le=1, description="soft update coefficient of the target networks")
    action_noise_std: float | None = Field(
        default=None, gt=0, description="std of Gaussian noise added to the actions while training (none by default)")


class SACParams(ContinuousParams):
    """Soft Actor-Critic (continuous actions)."""

    learning_rate: LearningRate = Field(default=3e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    ent_coef: Literal["auto"] | float = Field(default="auto", description="entropy coefficient, or 'auto' to learn it")
    target_update_interval: int = Field(default=1, ge=1, description="gradient steps between target network updates")


class TD3Params(ContinuousParams):
    """Twin Delayed DDPG (continuous actions)."""

    learning_rate: LearningRate = Field(default=1e-3, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    policy_delay: int = Field(default=2, ge=1, description="critic updates per actor and target update")
    target_policy_noise: float = Field(default=0.2, ge=0, description="std of the noise added to target actions")
    target_noise_clip: float = Field(default=0.5, ge=0, description="clip of the target action noise")
