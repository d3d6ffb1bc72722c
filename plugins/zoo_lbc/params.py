"""LBC params: presets (the paper's Table 3, a small CPU setting) under per-field overrides, and ablations."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from zoo import Params
from zoo_learner.params import PresetParams

Ablation = Literal["none", "reduce_H", "reduce_H_and_Psi", "random_selection", "no_ucb", "no_replacement"]


class MemberParams(Params):
    """One population member: its discount and reward shaping."""

    gamma: float = Field(gt=0, le=1)
    shaping: Literal["rs1", "rs2", "rs3", "none"] = Field(description="rs1: sqrt; rs2: log, positives doubled; rs3: tanh, bounded")


#: Table 3: gamma_i and RS_i
PAPER_MEMBERS = [{"gamma": 0.997, "shaping": "rs1"}, {"gamma": 0.999, "shaping": "rs2"}, {"gamma": 0.99, "shaping": "rs3"}]

PRESETS: dict[str, dict[str, Any]] = {
    # LBC paper, Table 3 (Atari): Agent57-style conv torso, LSTM 256; 160 actors as in GDI.
    "paper": {
        "num_envs": 160, "burn_in": 40, "length": 80, "batch": 64, "reuse": 2, "pull_every": 64, "push_every": 25,
        "controller_scope": "per_env", "members": PAPER_MEMBERS, "rho_bar": 1.05, "c_bar": 1.05,
        "loss_scales": [1.0, 5.0, 5.0],
        "network": {"torso": "nature", "embedding": 512, "lstm": 256, "head_hidden": 512},
        "optimizer": {"lr": 5.3e-4, "warmup": 4000, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
    # specs/lbc.md 8.2: 8 actors sharing one bandit population, sequences 10 + 20, batch 16, small networks,
    # discounts in the paper's order (gamma2 > gamma1 > gamma3) for horizons under a few hundred steps.
    "cpu_small": {
        "num_envs": 8, "burn_in": 10, "length": 20, "batch": 16, "reuse": 2, "pull_every": 16, "push_every": 5,
        "controller_scope": "shared", "rho_bar": 1.05, "c_bar": 1.05, "loss_scales": [1.0, 5.0, 5.0],
        "members": [{"gamma": 0.97, "shaping": "rs1"}, {"gamma": 0.99, "shaping": "rs2"}, {"gamma": 0.95, "shaping": "rs3"}],
        "network": {"torso": "auto", "hidden": [128], "impala_channels": [16, 32, 32], "impala_blocks": 1,
                    "embedding": 256, "lstm": 64, "head_hidden": 0},
        "optimizer": {"lr": 1e-3, "warmup": 0.1, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
}



class LBCParams(PresetParams):
    """LBC: a preset's values, with any field given here taking precedence (nested blocks merge)."""

    PRESETS = PRESETS

    preset: Literal["paper", "cpu_small"] = Field(default="cpu_small", description="paper: Table 3; cpu_small: specs/lbc.md 8.2")
    ablation: Ablation = Field(default="none", description="the paper's Table 12 variants and App. K.3's w/o UCB")
    members: list[MemberParams] = Field(default_factory=lambda: [MemberParams(**m) for m in PAPER_MEMBERS],
                                        min_length=2, max_length=8, description="the population: (gamma, shaping) per member")
    rho_bar: float = Field(default=1.05, gt=0, description="clip of the importance weight in V-trace and the policy gradient")
    c_bar: float = Field(default=1.05, gt=0, description="clip of the trace coefficients")
    loss_scales: tuple[float, float, float] = Field(default=(1.0, 5.0, 5.0), description="xi (V), alpha (Q), beta (policy)")

