"""Params of the linear DQN: the paper's values, and the authors' configuration where the paper is silent."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from zoo import Params


class LinearDQNParams(Params):
    """Q(s, a) = theta . phi(s, a) over the paper's GOHR features (Algorithm 1).

    From the paper: replay 1000, batch 128, epsilon 0.001 + 0.899 exp(-moves/200), squared loss,
    theta and the target initialised to 0, uniform exploration over all 144 actions. From the
    authors' configuration (the paper is silent): gamma 1, Adam with lr 0.01, target period 200,
    counted in moves as the authors' code counts it; counted in Algorithm 1's episodes
    (``target_unit: episodes``), 200 of them never refresh the target within the paper's 200-episode
    trials (docs/gohr-paper-study.md compares the readings). Empty cells' features as the authors
    coded them (``empty_cells: printed`` follows appendix A.1.1's formulas).
    """

    features: Literal["gohr-paper"] = Field(default="gohr-paper", description="the feature map (its factored form is required)")
    empty_cells: Literal["coded", "printed"] = Field(default="coded", description=(
        "an empty cell's features: its bucket unary (the authors' code) or also its (last bucket, bucket) pair (A.1.1 as printed)"))
    gamma: float = Field(default=1.0, ge=0.0, le=1.0, description="discount factor")
    lr: float = Field(default=0.01, gt=0.0, le=10.0, description="Adam step size")
    adam_betas: tuple[float, float] = Field(default=(0.9, 0.999), description="Adam's moment decay rates")
    adam_eps: float = Field(default=1e-8, gt=0.0, description="Adam's epsilon")
    loss: Literal["mse", "huber"] = Field(default="mse", description="the paper prints the squared loss; huber is SmoothL1")
    replay_size: int = Field(default=1000, ge=1, le=10_000_000, description="replay memory capacity (moves)")
    batch_size: int = Field(default=128, ge=1, le=100_000, description="moves per update")
    learning_starts: int | None = Field(default=None, ge=1, description="moves in the replay before updates (default: batch_size)")
    eps_start: float = Field(default=0.9, ge=0.0, le=1.0, description="exploration rate at the first move")
    eps_end: float = Field(default=0.001, ge=0.0, le=1.0, description="exploration rate it decays towards")
    eps_decay: float = Field(default=200.0, gt=0.0, description="moves; epsilon = end + (start - end) exp(-moves / decay)")
    target_period: int = Field(default=200, ge=1, description="target_unit between target refreshes")
    target_unit: Literal["episodes", "moves"] = Field(default="moves", description="what target_period counts")
    mask_actions: bool = Field(default=False, description="explore and act only on occupied cells")

    def epsilon(self, moves):
        """Exploration rate after `moves` moves of the trial: end + (start - end) exp(-moves / decay)."""
        import numpy as np

        return self.eps_end + (self.eps_start - self.eps_end) * np.exp(-np.asarray(moves) / self.eps_decay)

    @model_validator(mode="after")
    def _starts_after_a_batch(self):
        if self.learning_starts is not None and self.learning_starts < self.batch_size:
            raise ValueError(f"learning_starts ({self.learning_starts}) is below batch_size ({self.batch_size})")
        if self.batch_size > self.replay_size:
            raise ValueError(f"batch_size ({self.batch_size}) exceeds replay_size ({self.replay_size})")
        return self


class MLPDQNParams(Params):
    """The authors' later MLP DQN (IEEE Access 2024; docs/algorithms/gohr-dqn.md), per trial.

    Double DQN with a Huber loss and RMSprop; exploration and greedy moves are masked to occupied
    cells minus the moves rejected since the last accepted one. The input is the board one-hot
    plus, for each of the last ``history`` accepted moves, the board then (``BS``, before the move)
    or the moved piece's shape and color (``BD``), and the action one-hot (``AS``) or its row,
    column and bucket (``AD``).
    """

    featurization: Literal["BS_AS", "BS_AD", "BD_AS", "BD_AD"] = Field(
        default="BS_AS", description="history as boards (BS) or moved pieces (BD); actions one-hot (AS) or as row, column, bucket (AD)")
    history: int = Field(default=6, ge=0, le=64, description="accepted moves remembered (n)")
    hidden: list[int] = Field(default_factory=lambda: [700, 700], min_length=1, description="hidden layer sizes")
    gamma: float = Field(default=0.001, ge=0.0, le=1.0, description="discount factor")
    lr: float = Field(default=1e-4, gt=0.0, le=10.0, description="RMSprop step size")
    replay_size: int = Field(default=30_000, ge=1, le=10_000_000, description="replay memory capacity (moves)")
    batch_size: int = Field(default=256, ge=1, le=100_000, description="moves per update")
    target_period: int = Field(default=100, ge=1, description="moves between target syncs")
    eps_start: float = Field(default=0.99, ge=0.0, le=1.0, description="exploration rate at the first move")
    eps_end: float = Field(default=0.0001, ge=0.0, le=1.0, description="exploration rate it decays towards")
    eps_decay: float = Field(default=200.0, gt=0.0, description="moves")
    mask_rejected: bool = Field(default=True, description="mask empty cells and moves rejected since the last accepted one")

    epsilon = LinearDQNParams.epsilon

    @model_validator(mode="after")
    def _batch_fits(self):
        if self.batch_size > self.replay_size:
            raise ValueError(f"batch_size ({self.batch_size}) exceeds replay_size ({self.replay_size})")
        return self
