"""LBC params: presets (the paper's Table 3, the substrate's CPU setting) under per-field overrides, and ablations."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field
from zoo_learner.params import (
    CPU_SMALL_PRESET,
    GOHR_WORLD,
    MINATAR_WORLD,
    PAPER_PRESET,
    ActorCriticParams,
    merge,
    searched,
)

from zoo import Params

Ablation = Literal["none", "reduce_H", "reduce_H_and_Psi", "random_selection", "no_ucb", "no_replacement"]

#: Table 3's RS_i -> the substrate's shaping (zoo_learner.shaping)
SHAPING_NAMES = {"rs1": "sqrt", "rs2": "log", "rs3": "tanh", "none": "none"}


class MemberParams(Params):
    """One population member: its discount and reward shaping."""

    gamma: float = Field(gt=0, le=1)
    shaping: Literal["rs1", "rs2", "rs3", "none"] = Field(description="rs1: sqrt; rs2: log, positives doubled; rs3: tanh, bounded")


#: Table 3: gamma_i and RS_i
PAPER_MEMBERS = [{"gamma": 0.997, "shaping": "rs1"}, {"gamma": 0.999, "shaping": "rs2"}, {"gamma": 0.99, "shaping": "rs3"}]

PRESETS: dict[str, dict[str, Any]] = {
    # LBC paper, Table 3 (Atari): Agent57-style conv torso, LSTM 256, learning rate 5.3e-4. Table 3 switches
    # on forward and inverse dynamics tasks without a weight or a shape: here each weighs 1 per member
    # beside the V loss's 1 and is an MLP with 256 hidden units on the member's torso output.
    "paper": merge(PAPER_PRESET, {
        "controller_scope": "per_env", "members": PAPER_MEMBERS, "loss_scales": [1.0, 5.0, 5.0],
        "auxiliary": {"forward": 1.0, "inverse": 1.0, "hidden": 256},
        "network": {"torso": "nature", "embedding": 512, "lstm": 256, "head_hidden": 512},
        "optimizer": {"lr": 5.3e-4},
    }),
    # 8 actors sharing one bandit population, warm-up over the first 10% of the run, and discounts in the
    # paper's order (gamma2 > gamma1 > gamma3) for horizons under a few hundred steps.
    "cpu_small": merge(CPU_SMALL_PRESET, {
        "controller_scope": "shared", "loss_scales": [1.0, 5.0, 5.0],
        "members": [{"gamma": 0.97, "shaping": "rs1"}, {"gamma": 0.99, "shaping": "rs2"}, {"gamma": 0.95, "shaping": "rs3"}],
        "optimizer": {"warmup": 0.1},
    }),
}
# Short discounts for GOHR's 100-move boards, then the search's winner: benchmarks/tuning/results/gohr-lbc.json.
PRESETS["gohr"] = searched(
    PRESETS["cpu_small"],
    merge(GOHR_WORLD, {"members": [{"gamma": 0.9, "shaping": "rs1"}, {"gamma": 0.95, "shaping": "rs2"},
                                   {"gamma": 0.85, "shaping": "rs3"}]}),
    {"batch": 8, "reuse": 8, "network": {"lstm": 32}, "optimizer": {"lr": 2.04e-3}})
# The search's winner on MinAtar Breakout (benchmarks/tuning/results/minatar-lbc.json), which weighs the members'
# Q loss 1 instead of the paper's 5: at 5 it flattens the advantages before the first reward (docs/substrate.md).
PRESETS["minatar"] = searched(
    PRESETS["cpu_small"], MINATAR_WORLD,
    {"num_envs": 4, "batch": 16, "length": 20, "reuse": 8, "network": {"lstm": 128}, "optimizer": {"lr": 2.55e-3},
     "loss_scales": [1.0, 1.0, 5.0]})


class LBCParams(ActorCriticParams):
    """LBC: a preset's values, with any field given here taking precedence (nested blocks merge)."""

    PRESETS = PRESETS

    ablation: Ablation = Field(default="none", description="the paper's Table 12 variants and App. K.3's w/o UCB")
    members: list[MemberParams] = Field(default_factory=lambda: [MemberParams(**m) for m in PAPER_MEMBERS],
                                        min_length=2, max_length=8, description="the population: (gamma, shaping) per member")
    loss_scales: tuple[float, float, float] = Field(default=(1.0, 5.0, 5.0), description="xi (V), alpha (Q), beta (policy)")
