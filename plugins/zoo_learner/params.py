"""The substrate's spec blocks: networks, optimizer, machinery, and the params base and presets GDI, DiCE and LBC
share (no torch import, so plugins load fast)."""

from __future__ import annotations

from typing import Any, ClassVar, Literal

from pydantic import Field, ValidationInfo, model_validator

from zoo import Params, reading_resolved_spec

TorsoName = Literal["auto", "mlp", "cells", "minatar", "nature", "impala"]
Precision = Literal["float32", "int8"]
#: how evaluation episodes choose their behaviors (SubstrateParams.evaluation)
EvaluationMode = Literal["mechanism", "best_region", "auto"]


class NetworkParams(Params):
    """Torso, recurrent core and heads of an agent's network."""

    torso: TorsoName = Field(default="auto", description="mlp for vectors; cells for vectors of cells whose "
                             "actions act on one cell each (GOHR); minatar, nature or impala for images (C, H, W); auto: mlp or impala")
    hidden: list[int] = Field(default=[128], min_length=1, max_length=8, description="mlp layer sizes (cells: of the per-cell encoder)")
    cells: int = Field(default=36, ge=1, le=4096, description="cells torso: cells at the start of the observation")
    cell_features: int = Field(default=8, ge=1, le=4096, description="cells torso: features per cell (GOHR: shapes + colors)")
    impala_channels: list[int] = Field(default=[16, 32, 32], min_length=1, max_length=6, description="impala torso: "
                                       "output channels of each stage (a 3x3 conv, a stride-2 max-pool, then its residual blocks)")
    impala_blocks: int = Field(default=2, ge=0, le=8, description="residual blocks per IMPALA stage")
    embedding: int = Field(default=256, ge=1, le=8192, description="torso output size (conv torsos)")
    lstm: int = Field(default=256, ge=0, le=8192, description="LSTM units (0: no recurrence)")
    head_hidden: int = Field(default=0, ge=0, le=8192, description="hidden layer of each A and V head (0: linear)")


class OptimizerParams(Params):
    """AdamW and its schedules (the GDI/DiCE/LBC papers' Table 6 defaults)."""

    lr: float = Field(default=5e-4, gt=0, le=1, description="AdamW's peak learning rate (reached after the warm-up)")
    warmup: int | float = Field(default=4000, ge=0, description="warm-up updates, or a fraction (< 1) of the planned updates")
    decay: bool = Field(default=True, description="lr and weight decay fall linearly to 0 at the planned last update")
    weight_decay: float = Field(default=0.01, ge=0, le=1, description="AdamW's decoupled weight decay (falls to 0 with decay)")
    betas: tuple[float, float] = Field(default=(0.9, 0.98), description="AdamW's decay rates of the first and second "
                                        "moment estimates")
    eps: float = Field(default=1e-6, gt=0, description="AdamW's epsilon, added to the root of the second moment")
    clip_norm: float = Field(default=50.0, gt=0, description="gradients are rescaled to this global L2 norm at most")


class AuxiliaryParams(Params):
    """The auxiliary dynamics tasks on the torso's embedding z, each a loss weight (0: off)."""

    forward: float = Field(default=0.0, ge=0, description="weight of forward dynamics: predict z(o_t+1) from z(o_t) "
                           "and the one-hot a_t (squared error per feature, the target detached); 0: off")
    inverse: float = Field(default=0.0, ge=0, description="weight of inverse dynamics: predict a_t from z(o_t) and "
                           "z(o_t+1) (cross-entropy); 0: off")
    hidden: int = Field(default=256, ge=0, le=8192, description="hidden layer of each dynamics model (0: linear)")


class SubstrateParams(Params):
    """Actors, sequences, replay and synchronisation."""

    num_envs: int = Field(default=8, ge=1, le=4096, description="env slots stepped together by each actor")
    actors: int = Field(default=1, ge=1, le=1024, description="actors, each with its own vector of num_envs envs and "
                        "its meta-controllers. local backend: stepped in turn in the trial's process; ray backend (with "
                        "2 or more): one Ray actor process each, feeding the learner in the trial's process")
    burn_in: int = Field(default=10, ge=0, le=10_000, description="burn-in rows per sequence")
    length: int = Field(default=20, ge=1, le=10_000, description="trained rows per sequence")
    batch: int = Field(default=16, ge=1, le=4096, description="sequences per learner update")
    reuse: int = Field(default=2, ge=1, le=1000, description="learner batches each sequence is used in")
    capacity: int = Field(default=4096, ge=1, le=10**7, description="sequences held at most (oldest dropped)")
    pull_every: int = Field(default=16, ge=1, description="vector env steps between actor weight pulls")
    push_every: int = Field(default=5, ge=1, description="learner updates between weight pushes")
    actor_precision: Precision = Field(
        default="float32", description="weights the actors act with. float32: the pulled weights; int8: an int8 copy "
        "of them, as ActorQ's actors (Linear and LSTMCell layers; with uint8 pixels also the Conv2d+ReLU chain of the "
        "nature and minatar torsos, calibrated on the actor's observations at each new version); the stored behavior "
        "probabilities are the int8 policy's, so the corrections stay exact")
    actor_cpus: float = Field(default=1.0, gt=0, le=256, description="ray backend: logical CPUs each actor process "
                              "asks the cluster for (below 1 packs more actors than cores, e.g. 0.5 for 2 actors "
                              "beside a trial on 2 cores)")
    mask_actions: bool = Field(
        default=False, description="act only on the legal actions the env gives in info['action_mask'] (GOHR: "
        "the moves of occupied cells): the behavior policies, the learning policy and its V-trace and Retrace "
        "terms are restricted to them and renormalized, and the masks are stored with the sequences. The papers "
        "had no masks (Atari's 18 actions are all legal); false reproduces the unmasked agents exactly")
    controller_scope: Literal["per_env", "shared"] = Field(default="per_env", description="one meta-controller per env slot, or one per actor")
    evaluation: EvaluationMode = Field(
        default="mechanism", description="behaviors of evaluation episodes. mechanism: a fresh meta-controller of the "
        "same kind, sampled and updated episode by episode as in training; best_region: episode k is drawn uniformly "
        "inside the best region of trained controller k (cycling over them), no exploration bonus, no update "
        "(GDI's greedy-lambda eval, DiCE's best tau, LBC's greedy-arm evaluator); needs a meta-controller with one "
        "(not uniform); auto: best_region when the trial's meta-controller has a best region, else mechanism")
    planned_updates: int | None = Field(default=None, ge=1, description="updates the schedules run over (default: from a step budget)")
    network: NetworkParams = Field(default_factory=NetworkParams)
    optimizer: OptimizerParams = Field(default_factory=OptimizerParams)


def merge(base: dict[str, Any], override: dict[str, Any]) -> dict[str, Any]:
    """`override` over `base`, nested dicts merged key by key."""
    merged = dict(base)
    for key, value in override.items():
        merged[key] = merge(base[key], value) if isinstance(value, dict) and isinstance(base.get(key), dict) else value
    return merged


class PresetParams(SubstrateParams):
    """Params filled from a named preset (``PRESETS[preset]``); fields given in the spec take precedence. A run's
    resolved spec is read as it is, so a run keeps its values when a preset changes."""

    PRESETS: ClassVar[dict[str, dict[str, Any]]] = {}
    #: per world, the settings its searched preset took from a board after the search (tested beside the search's)
    AFTER_SEARCH: ClassVar[dict[str, dict[str, Any]]] = {}
    DEFAULT_PRESET: ClassVar[str] = "cpu_small"

    @model_validator(mode="before")
    @classmethod
    def _apply_preset(cls, data: Any, info: ValidationInfo) -> Any:
        if not isinstance(data, dict) or reading_resolved_spec(info):
            return data
        preset = data.get("preset", cls.DEFAULT_PRESET)
        if preset not in cls.PRESETS:
            return data  # the preset field's Literal reports it
        return merge(cls.PRESETS[preset], data)


#: What the GDI (Table 6), DiCE (Table 5) and LBC (Table 3) papers' Atari settings share: 160 actors,
#: sequences of 40 burn-in and 80 trained rows, 64 per batch, each used twice, importance clips of
#: 1.05, AdamW with 4000 warm-up updates and both schedules decayed to 0.
PAPER_PRESET: dict[str, Any] = {
    "num_envs": 160, "burn_in": 40, "length": 80, "batch": 64, "reuse": 2, "pull_every": 64, "push_every": 25,
    "rho_bar": 1.05, "c_bar": 1.05,
    "optimizer": {"lr": 5e-4, "warmup": 4000, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98],
                  "eps": 1e-6, "clip_norm": 50.0},
}

#: The smallest settings that still train: 2 envs, batches of 2 sequences of 2 + 5 rows, a 16-unit MLP and an
#: 8-unit LSTM; the example params of each substrate agent (``zoo check`` trains it with them in seconds).
TINY_EXAMPLE: dict[str, Any] = {"num_envs": 2, "batch": 2, "length": 5, "burn_in": 2, "network": {"hidden": [16], "lstm": 8}}

#: The papers' settings scaled to a few CPU cores (docs/algorithms/substrate.md): 8 actors stepped in one
#: process, sequences of 10 + 20 rows, batch 16, an MLP (vectors) or one-block IMPALA torso and an LSTM of
#: 64 units, learning rate 1e-3; each agent sets its own warm-up fraction and discounts.
CPU_SMALL_PRESET: dict[str, Any] = {
    "num_envs": 8, "burn_in": 10, "length": 20, "batch": 16, "reuse": 2, "pull_every": 16, "push_every": 5,
    "rho_bar": 1.05, "c_bar": 1.05,
    "network": {"torso": "auto", "hidden": [128], "impala_channels": [16, 32, 32], "impala_blocks": 1,
                "embedding": 256, "lstm": 64, "head_hidden": 0},
    "optimizer": {"lr": 1e-3, "decay": True, "weight_decay": 0.01, "betas": [0.9, 0.98], "eps": 1e-6,
                  "clip_norm": 50.0},
}


#: The GOHR settings the searches of benchmarks/tuning/ started from (color match at 4,000 moves): masked moves,
#: the board-cells torso, sequences of 5 + 10 rows and 16 boards per actor. Each agent's ``gohr`` preset is
#: its cpu_small preset with these, its discounts and the search's winner (benchmarks/tuning/results/).
GOHR_WORLD: dict[str, Any] = {
    "mask_actions": True, "num_envs": 16, "burn_in": 5, "length": 10,
    "network": {"torso": "cells", "hidden": [64], "embedding": 64},
}


#: The MinAtar settings the searches of benchmarks/tuning/ started from (Breakout at 100,000 steps), those of
#: minatar-v1's substrate cells: MinAtar's 3x3 conv torso with a 128-unit embedding and an LSTM of 64, sequences
#: of 5 + 10 rows used 4 times. Each agent's ``minatar`` preset is its cpu_small preset with these and the search's
#: winner, when the winner beat these settings on held-out seeds.
MINATAR_WORLD: dict[str, Any] = {
    "reuse": 4, "length": 10, "burn_in": 5, "network": {"torso": "minatar", "embedding": 128, "lstm": 64},
}


#: What the `preset` field offers.
PRESETS_HELP = ("paper: the paper's Atari table; cpu_small: the setting for a few CPU cores (docs/algorithms/substrate.md); "
                "gohr, minatar: cpu_small with the settings searched on that world (GOHR: masked moves, 4,000-move "
                "budget; MinAtar: 100,000 steps; docs/substrate.md, 'Searched settings per world')")


def searched(cpu_small: dict[str, Any], world: dict[str, Any], winner: dict[str, Any]) -> dict[str, Any]:
    """A searched preset: `cpu_small` under the world's settings under the search's `winner`."""
    return merge(merge(cpu_small, world), winner)


class ActorCriticParams(PresetParams):
    """The fields GDI, DiCE and LBC share: the preset, the importance clips and the three loss scales."""

    preset: Literal["paper", "cpu_small", "gohr", "minatar"] = Field(default="cpu_small", description=PRESETS_HELP)
    rho_bar: float = Field(default=1.05, gt=0, description="clip of the importance weight in V-trace and the policy gradient")
    c_bar: float = Field(default=1.05, gt=0, description="clip of the trace coefficients")
    loss_scales: tuple[float, float, float] = Field(default=(1.0, 10.0, 10.0), description="xi (V), alpha (Q), beta (policy)")
    auxiliary: AuxiliaryParams = Field(default_factory=AuxiliaryParams, description="forward and inverse dynamics "
                                       "tasks added to the loss (GDI's and LBC's tables list both; off by default)")
