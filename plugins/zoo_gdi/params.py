"""GDI params: presets (the paper's tables, a small CPU setting) under per-field overrides, and ablations."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from zoo_learner.params import PresetParams

Ablation = Literal["none", "fixed_selection", "random_selection", "boltzmann_selection", "eps_greedy_selection"]

PRESETS: dict[str, dict[str, Any]] = {
    # GDI paper, Table 6 (Atari); heads of 512 units and IMPALA-deep with 2 residual blocks per stage [spec R].
    "paper": {
        "num_envs": 160, "burn_in": 40, "length": 80, "batch": 64, "reuse": 2, "pull_every": 64, "push_every": 25,
        "gamma": 0.997, "rho_bar": 1.05, "c_bar": 1.05, "loss_scales": [1.0, 10.0, 10.0],
        "network": {"torso": "impala", "impala_channels": [16, 32, 32], "impala_blocks": 2, "embedding": 256,
                    "lstm": 256, "head_hidden": 512},
        "optimizer": {"lr": 5e-4, "warmup": 4000, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
    # specs/gdi.md section 8.2: 8 actors in one process, short sequences, small networks.
    "cpu_small": {
        "num_envs": 8, "burn_in": 10, "length": 20, "batch": 16, "reuse": 2, "pull_every": 16, "push_every": 5,
        "gamma": 0.99, "rho_bar": 1.05, "c_bar": 1.05, "loss_scales": [1.0, 10.0, 10.0],
        "network": {"torso": "auto", "hidden": [128], "impala_channels": [16, 32, 32], "impala_blocks": 1,
                    "embedding": 256, "lstm": 64, "head_hidden": 0},
        "optimizer": {"lr": 1e-3, "warmup": 0.05, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
}



class GDIParams(PresetParams):
    """GDI: a preset's values, with any field given here taking precedence (nested blocks merge)."""

    PRESETS = PRESETS

    preset: Literal["paper", "cpu_small"] = Field(default="cpu_small", description="paper: Table 6; cpu_small: specs/gdi.md 8.2")
    ablation: Ablation = Field(default="none", description="the paper's Table 20 variants")
    gamma: float = Field(default=0.99, gt=0, le=1)
    rho_bar: float = Field(default=1.05, gt=0, description="clip of the importance weight in V-trace and the policy gradient")
    c_bar: float = Field(default=1.05, gt=0, description="clip of the trace coefficients")
    loss_scales: tuple[float, float, float] = Field(default=(1.0, 10.0, 10.0), description="xi (V), alpha (Q), beta (policy)")
    retrace: Literal["paper", "expected"] = Field(default="paper", description="sampled next Q (paper) or E_pi Q (Munos et al.)")
    shared_torso: bool = Field(default=False, description="GDI-H3: one torso and LSTM with two heads instead of two networks")

