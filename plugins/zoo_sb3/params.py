"""Validated hyperparameters of the stable-baselines3 agents (SB3's defaults unless noted)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from zoo import Params

Activation = Literal["tanh", "relu", "elu", "leaky_relu"]


class PolicyParams(Params):
    """The network: hidden layer sizes and activation (SB3's policy_kwargs)."""

    net_arch: list[int] | None = Field(default=None, description="hidden layer sizes (SB3's default if unset)")
    activation: Activation | None = Field(default=None, description="activation function (SB3's default if unset)")


class CommonParams(Params):
    policy: Literal["MlpPolicy", "CnnPolicy", "MultiInputPolicy"] = "MlpPolicy"
    policy_kwargs: PolicyParams = Field(default_factory=PolicyParams)
    gamma: float = Field(default=0.99, gt=0, le=1)
    n_envs: int = Field(default=1, ge=1, le=1024, description="copies of the env stepped together")


class PPOParams(CommonParams):
    """Proximal Policy Optimization."""

    learning_rate: float = Field(default=3e-4, gt=0, le=1)
    n_steps: int = Field(default=2048, ge=1, le=10**7, description="steps per env per rollout")
    batch_size: int = Field(default=64, ge=1, le=10**7)
    n_epochs: int = Field(default=10, ge=1, le=1000)
    gae_lambda: float = Field(default=0.95, ge=0, le=1)
    clip_range: float = Field(default=0.2, gt=0, le=10)
    ent_coef: float = Field(default=0.0, ge=0, le=10)
    vf_coef: float = Field(default=0.5, ge=0, le=10)
    max_grad_norm: float = Field(default=0.5, gt=0)
    normalize_advantage: bool = True
    target_kl: float | None = Field(default=None, gt=0)


class A2CParams(CommonParams):
    """Advantage Actor-Critic."""

    learning_rate: float = Field(default=7e-4, gt=0, le=1)
    n_steps: int = Field(default=5, ge=1, le=10**7)
    gae_lambda: float = Field(default=1.0, ge=0, le=1)
    ent_coef: float = Field(default=0.0, ge=0, le=10)
    vf_coef: float = Field(default=0.5, ge=0, le=10)
    max_grad_norm: float = Field(default=0.5, gt=0)
    use_rms_prop: bool = True
    normalize_advantage: bool = False


class DQNParams(CommonParams):
    """Deep Q-Network."""

    learning_rate: float = Field(default=1e-4, gt=0, le=1)
    buffer_size: int = Field(default=1_000_000, ge=1, le=10**8)
    learning_starts: int = Field(default=100, ge=0)
    batch_size: int = Field(default=32, ge=1, le=10**6)
    tau: float = Field(default=1.0, gt=0, le=1)
    train_freq: int = Field(default=4, ge=1)
    gradient_steps: int = Field(default=1, ge=-1)
    target_update_interval: int = Field(default=10_000, ge=1)
    exploration_fraction: float = Field(default=0.1, gt=0, le=1)
    exploration_initial_eps: float = Field(default=1.0, ge=0, le=1)
    exploration_final_eps: float = Field(default=0.05, ge=0, le=1)
    max_grad_norm: float = Field(default=10.0, gt=0)
