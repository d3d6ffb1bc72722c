"""The zoo plugin of SARSA(lambda): the ``sarsa`` agent, the kind ``feature`` with its hook
(:mod:`zoo_sarsa.feature_maps`) and the ALE paper's feature maps."""

from __future__ import annotations

from pydantic import Field

from zoo import AgentEntry, Params, hookimpl

from .feature_maps import FEATURE_MAPS, FeatureEntry


class BackgroundParams(Params):
    """How the per-pixel background (the mode over sampled frames) is estimated."""

    background_frames: int = Field(default=18_000, ge=1, le=10**7, description="frames sampled (the paper: 18,000)")
    background_seed: int = Field(default=0, ge=0, description="seed of the frames sampled for the background")


class GridParams(BackgroundParams):
    """The tile grid ("abstraction level"); it must divide the 160x210 screen."""

    cols: int = Field(default=16, ge=1, le=160, description="tile columns across the 160-pixel width")
    rows: int = Field(default=14, ge=1, le=210, description="tile rows across the 210-pixel height")


class LshParams(Params):
    """LSH constants (the ALE paper's Appendix A): l tables of k support coordinates hashed into M buckets."""

    tables: int = Field(default=2000, ge=1, le=100_000, description="l")
    support: int = Field(default=1000, ge=1, le=100_000, description="k")
    buckets: int = Field(default=50, ge=2, le=10_000, description="M")
    seed: int = Field(default=0, ge=0, description="seed of the random hash functions")


class DiscoParams(Params):
    """DISCO's preprocessing sample and tile coding (defaults: docs/algorithms/sarsa-ale.md)."""

    preprocessing_frames: int = Field(default=36_000, ge=1, le=10**7, description="frames sampled (the paper: 36,000)")
    preprocessing_seed: int = Field(default=0, ge=0, description="seed of the frames sampled for preprocessing")
    tilings: int = Field(default=4, ge=1, le=64, description="T")
    resolution: int = Field(default=8, ge=1, le=256, description="R: an R x R grid per tiling")
    cap: int = Field(default=8, ge=1, le=1000, description="instances per class")


def _background(params, env):
    from .screens import game_background

    return game_background(env, params.background_frames, params.background_seed)


def make_basic(params: GridParams, env):
    from .features import BasicFeatures

    return BasicFeatures(_background(params, env), params.cols, params.rows)


def make_bass(params: GridParams, env):
    from .features import BassFeatures

    return BassFeatures(_background(params, env), params.cols, params.rows)


def make_ram(params, env):
    from .features import RamFeatures

    return RamFeatures()


def make_lsh(params: LshParams, env):
    from .features import LshFeatures

    return LshFeatures(params.tables, params.support, params.buckets, params.seed)


def make_disco(params: DiscoParams, env):
    from .disco import DiscoFeatures, discover_classes
    from .screens import game_background, sample_screens

    background = game_background(env, params.preprocessing_frames, params.preprocessing_seed)
    screens = (s for batch in sample_screens(env.unwrapped.ale, params.preprocessing_frames, params.preprocessing_seed)
               for s in batch)
    classes = discover_classes(screens, background)
    return DiscoFeatures(background, classes, tilings=params.tilings, resolution=params.resolution, cap=params.cap)


def make_sarsa(params, context):
    from .agent import SarsaAgent

    return SarsaAgent(params, context)


@hookimpl
def register_kinds(register):
    register(FEATURE_MAPS)


@hookimpl
def register_features(register):
    register(FeatureEntry(name="basic", params=GridParams, factory=make_basic,
                          description="ALE Basic: tile x 128 colours of foreground pixels (28,672)"))
    register(FeatureEntry(name="bass", params=GridParams, factory=make_bass,
                          description="ALE BASS: tile x 8 SECAM colours plus all pairs (1,606,528)"))
    register(FeatureEntry(name="ram", factory=make_ram,
                          description="ALE RAM: 1024 bits plus all pairs (524,800)"))
    register(FeatureEntry(name="disco", params=DiscoParams, factory=make_disco,
                          description="ALE DISCO: tile-coded object classes and their pairs (counts)"))
    register(FeatureEntry(name="lsh", params=LshParams, factory=make_lsh,
                          description="ALE LSH: random projections of the screen hashed (100,000; 2,000 active)"))


@hookimpl
def register_agents(register):
    from .agent import SarsaParams

    register(AgentEntry(name="sarsa", params=SarsaParams, factory=make_sarsa,
                        example={"features": {"type": "gohr-paper"}, "reward_norm": "none"},
                        example_env={"type": "gohr", "rule": "paper/color_match", "horizon": 30},
                        description="SARSA(lambda), replacing traces, linear over any feature map"))
