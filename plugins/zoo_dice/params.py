"""DiCE params: presets (the paper's Table 5, a small CPU setting) under per-field overrides, and ablations."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from zoo_learner.params import PresetParams

Ablation = Literal["none", "baseline", "random", "entropy"]

PRESETS: dict[str, dict[str, Any]] = {
    # DiCE paper, Appendix C, Table 5 (Atari): IMPALA-deep torso, LSTM 256, linear heads.
    "paper": {
        "num_envs": 160, "burn_in": 40, "length": 80, "batch": 64, "reuse": 2, "pull_every": 64, "push_every": 25,
        "gamma": 0.997, "rho_bar": 1.05, "c_bar": 1.05, "loss_scales": [1.0, 10.0, 10.0],
        "network": {"torso": "impala", "impala_channels": [16, 32, 32], "impala_blocks": 2, "embedding": 256,
                    "lstm": 256, "head_hidden": 0},
        "optimizer": {"lr": 5e-4, "warmup": 4000, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
    # specs/dice.md section 15: 8 actors in one process, sequences 10 + 20, batch 16, warm-up 20% of the run;
    # weights synchronised as often as in the GDI cpu_small preset (16 / 5) so that equal-step comparisons
    # match, and one Omega shared by the 8 actors (each would see too few episodes in a short run).
    "cpu_small": {
        "num_envs": 8, "burn_in": 10, "length": 20, "batch": 16, "reuse": 2, "pull_every": 16, "push_every": 5,
        "controller_scope": "shared",
        "gamma": 0.99, "rho_bar": 1.05, "c_bar": 1.05, "loss_scales": [1.0, 10.0, 10.0],
        "network": {"torso": "auto", "hidden": [128], "impala_channels": [16, 32, 32], "impala_blocks": 1,
                    "embedding": 256, "lstm": 64, "head_hidden": 0},
        "optimizer": {"lr": 1e-3, "warmup": 0.2, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                      "eps": 1e-6, "clip_norm": 50.0},
    },
}



class DiCEParams(PresetParams):
    """DiCE: a preset's values, with any field given here taking precedence (nested blocks merge)."""

    PRESETS = PRESETS

    preset: Literal["paper", "cpu_small"] = Field(default="cpu_small", description="paper: Table 5; cpu_small: specs/dice.md 15")
    ablation: Ablation = Field(default="none", description="baseline: tau = 1; random: Omega never updated; entropy: + H(pi_tau)")
    gamma: float = Field(default=0.99, gt=0, le=1)
    rho_bar: float = Field(default=1.05, gt=0, description="clip of the importance weight in V-trace and the policy gradient")
    c_bar: float = Field(default=1.05, gt=0, description="clip of the trace coefficients")
    loss_scales: tuple[float, float, float] = Field(default=(1.0, 10.0, 10.0), description="xi (V), alpha (Q), beta (policy)")
    reward_shape: Literal["literal", "symmetric", "none"] = Field(
        default="literal", description="literal: log(|r|+1) * (2 * 1[r>=0] - 1[r<0]); symmetric: sign(r) log(|r|+1)")
    retrace_variant: Literal["standard", "literal"] = Field(default="standard", description="E_pi Q (Munos et al.) or the printed sampled Q")
    advantage_centering: Literal["none", "mean", "policy"] = Field(default="none", description="how A enters Q = V + A")
    entropy_coefficient: float = Field(default=1.0, ge=0, description="weight of H(pi_tau) in the entropy ablation")

