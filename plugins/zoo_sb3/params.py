"""Validated hyperparameters of the stable-baselines3 and sb3-contrib agents.

Each params model holds every argument of its algorithm's constructor, with the library's default,
except those the zoo sets itself (`ZOO_OWNED`); ``policy_kwargs`` holds every argument of the
algorithm's policy class that a user chooses. Classes (activations, optimizers, buffers, feature
extractors) are written by name, as rl-baselines3-zoo writes them (``nn.ReLU``, ``relu``); learning
rates and clip ranges may be ``lin_X`` schedules. The models are declared here rather than read from
the classes at import, so that loading the plugin does not import torch; the plugin's tests check them
against the constructors' signatures. :mod:`.arguments` turns params into the constructor's arguments.
"""

from __future__ import annotations

import difflib
import re
from typing import Annotated, Any, Literal

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    Discriminator,
    Field,
    Strict,
    Tag,
    field_validator,
    model_validator,
)

from zoo import Params

FeedForwardPolicy = Literal["MlpPolicy", "CnnPolicy", "MultiInputPolicy"]
RecurrentPolicy = Literal["MlpLstmPolicy", "CnnLstmPolicy", "MultiInputLstmPolicy"]

#: constructor arguments the zoo sets itself, and where a spec sets them instead
ZOO_OWNED = {
    "env": "the spec's env block",
    "seed": "the spec's seed or seeds (each trial gets its own)",
    "verbose": "the zoo's progress display (logging.progress)",
    "tensorboard_log": "logging.tensorboard (the run folder's tensorboard/)",
    "_init_setup_model": "nothing: the zoo always builds the model",
}

#: torch.nn activation modules an SB3 network can use, by class name
ACTIVATIONS = ("CELU", "ELU", "GELU", "Hardswish", "Hardtanh", "Identity", "LeakyReLU", "LogSigmoid", "Mish",
               "PReLU", "ReLU", "ReLU6", "SELU", "SiLU", "Sigmoid", "Softplus", "Softsign", "Tanh", "Tanhshrink")
#: optimizers by class name: torch.optim's, and SB3's RMSprop written as TensorFlow's (rl-baselines3-zoo's Atari A2C)
OPTIMIZERS = ("Adadelta", "Adagrad", "Adam", "AdamW", "Adamax", "NAdam", "RAdam", "RMSprop", "RMSpropTFLike", "SGD")
FEATURE_EXTRACTORS = ("FlattenExtractor", "NatureCNN", "CombinedExtractor")
REPLAY_BUFFERS = ("ReplayBuffer", "DictReplayBuffer", "HerReplayBuffer")
ROLLOUT_BUFFERS = ("RolloutBuffer", "DictRolloutBuffer")
MASKABLE_ROLLOUT_BUFFERS = ("MaskableRolloutBuffer", "MaskableDictRolloutBuffer")

#: a value that falls linearly to 0 over the trial's budget, written as rl-baselines3-zoo does
LINEAR_SCHEDULE = re.compile(r"lin_([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)")


def _schedule_of(what: str, high: float):
    """A validator of a number in (0, high] or a ``lin_X`` schedule with X in that range."""

    def check(value: float | str) -> float | str:
        if isinstance(value, str):
            match = LINEAR_SCHEDULE.fullmatch(value)
            if match is not None and 0 < float(match.group(1)) <= high:
                return value
            try:
                value = float(value)  # YAML 1.1 reads 3e-4 (no dot) as a string
            except ValueError:
                raise ValueError(f"{what} is a number in (0, {high:g}] or 'lin_<initial>' such as 'lin_3e-4'"
                                 f" (given {value!r})") from None
        if not 0 < value <= high:
            raise ValueError(f"{what} is in (0, {high:g}] (given {value})")
        return value

    return check


LearningRate = Annotated[float | str, AfterValidator(_schedule_of("a learning rate", 1))]
ClipRange = Annotated[float | str, AfterValidator(_schedule_of("a clip range", 10))]


def _class_name(kind: str, names: tuple[str, ...]):
    """A validator reading a class by name, case and underscores aside, with any module prefix (``nn.ReLU``)."""
    folded = {name.lower(): name for name in names}

    def read(value: Any) -> Any:
        if not isinstance(value, str):
            return value
        name = value.rsplit(".", 1)[-1]
        found = folded.get(name.lower().replace("_", ""))
        if found is None:
            close = difflib.get_close_matches(name.lower(), list(folded), n=1, cutoff=0.6)
            hint = f" (did you mean '{folded[close[0]]}'?)" if close else ""
            raise ValueError(f"unknown {kind} {value!r}{hint}; known: {', '.join(names)}")
        return found

    return read


def ClassName(kind: str, names: tuple[str, ...]) -> Any:  # noqa: N802 (a type)
    return Annotated[Literal[names], BeforeValidator(_class_name(kind, names))]


Activation = ClassName("activation", ACTIVATIONS)
Optimizer = ClassName("optimizer", OPTIMIZERS)
FeatureExtractor = ClassName("features extractor", FEATURE_EXTRACTORS)
Layers = list[Annotated[int, Strict(), Field(ge=1, le=65_536)]]
Kwargs = dict[str, Any] | None


def _shape(value: Any) -> str:
    return "[mapping]" if isinstance(value, (dict, BaseModel)) else "[list]"


def ListOr(model: type[BaseModel]) -> Any:  # noqa: N802 (a type)
    """Hidden layers as one list, or as a mapping per network; errors name only the form given."""
    return Annotated[Annotated[Layers, Tag("[list]")] | Annotated[model, Tag("[mapping]")], Discriminator(_shape)]


class ActorCriticLayers(Params):
    """Separate hidden layers of the policy (pi) and value (vf) networks."""

    pi: Layers = Field(default_factory=list, description="hidden layers of the policy network")
    vf: Layers = Field(default_factory=list, description="hidden layers of the value network")


class ActorQLayers(Params):
    """Separate hidden layers of the actor (pi) and critic (qf) networks."""

    pi: Layers = Field(default_factory=list, description="hidden layers of the actor")
    qf: Layers = Field(default_factory=list, description="hidden layers of each critic")


# -- policy_kwargs: the policy class's arguments (unset: the policy's default) ----------------------------------------


class NetworkKwargs(Params):
    """What every SB3 policy takes."""

    activation_fn: Activation | None = Field(default=None, description="torch.nn activation by name: ReLU, Tanh (nn.ReLU, relu)")
    features_extractor_class: FeatureExtractor | None = Field(default=None, description="SB3 features extractor by name")
    features_extractor_kwargs: Kwargs = Field(default=None, description="keyword arguments of the features extractor")
    normalize_images: bool | None = Field(default=None, description="scale image observations to [0, 1]")
    optimizer_class: Optimizer | None = Field(default=None, description="optimizer by name: Adam, RMSprop, RMSpropTFLike")
    optimizer_kwargs: Kwargs = Field(default=None, description="keyword arguments of the optimizer, e.g. {eps: 1e-5}")


class MaskableKwargs(NetworkKwargs):
    """sb3-contrib's MaskableActorCriticPolicy."""

    net_arch: ListOr(ActorCriticLayers) | None = Field(default=None, description="hidden layers: shared list, or {pi: [..], vf: [..]}")
    ortho_init: bool | None = Field(default=None, description="orthogonal initialisation of the weights")
    share_features_extractor: bool | None = Field(default=None, description="one features extractor for policy and value")


class ActorCriticKwargs(MaskableKwargs):
    """SB3's ActorCriticPolicy (PPO, A2C)."""

    log_std_init: float | None = Field(default=None, description="initial log standard deviation of Gaussian actions")
    full_std: bool | None = Field(default=None, description="gSDE: a std per action and feature (else per feature)")
    use_expln: bool | None = Field(default=None, description="gSDE: expln instead of exp to keep the std positive")
    squash_output: bool | None = Field(default=None, description="tanh-squash the actions (with gSDE)")


class RecurrentKwargs(ActorCriticKwargs):
    """sb3-contrib's RecurrentActorCriticPolicy."""

    lstm_hidden_size: int | None = Field(default=None, ge=1, le=65_536, description="LSTM units")
    n_lstm_layers: int | None = Field(default=None, ge=1, le=64, description="stacked LSTM layers")
    shared_lstm: bool | None = Field(default=None, description="one LSTM for policy and value")
    enable_critic_lstm: bool | None = Field(default=None, description="a separate LSTM for the value network")
    lstm_kwargs: Kwargs = Field(default=None, description="keyword arguments of torch.nn.LSTM")


class QNetworkKwargs(NetworkKwargs):
    """SB3's DQNPolicy."""

    net_arch: Layers | None = Field(default=None, description="hidden layer sizes")


class QuantileKwargs(QNetworkKwargs):
    """sb3-contrib's QRDQNPolicy."""

    n_quantiles: int | None = Field(default=None, ge=1, le=10_000, description="quantiles of the return learned per action")


class ActorCriticQKwargs(NetworkKwargs):
    """SB3's TD3Policy."""

    net_arch: ListOr(ActorQLayers) | None = Field(default=None, description="hidden layers: shared list, or {pi: [..], qf: [..]}")
    n_critics: int | None = Field(default=None, ge=1, le=64, description="critic networks")
    share_features_extractor: bool | None = Field(default=None, description="one features extractor for actor and critics")


class SACKwargs(ActorCriticQKwargs):
    """SB3's SACPolicy."""

    log_std_init: float | None = Field(default=None, description="initial log standard deviation of the actions")
    use_expln: bool | None = Field(default=None, description="gSDE: expln instead of exp to keep the std positive")
    clip_mean: float | None = Field(default=None, gt=0, description="clip of the Gaussian's mean before the tanh")


# -- the algorithms' own arguments -------------------------------------------------------------------------------------


class CommonParams(Params):
    policy: FeedForwardPolicy = Field(default="MlpPolicy", description="SB3 policy class: MLP, CNN (images) or multi-input (dict observations)")
    gamma: float = Field(default=0.99, gt=0, le=1, description="discount factor")
    stats_window_size: int = Field(default=100, ge=1, le=10**6, description="episodes averaged in SB3's rollout statistics")
    device: Literal["auto", "cpu", "cuda"] = Field(
        default="cpu", description="torch device (the zoo's default: cpu); 'auto' takes CUDA when present (what ran is in sb3.json)")
    n_envs: int = Field(default=1, ge=1, le=1024, description="copies of the env stepped together")
    normalize_observations: bool = Field(default=False, description="VecNormalize: scale observations by running mean and std")
    normalize_rewards: bool = Field(default=False, description="VecNormalize: scale rewards by the running std of the return")
    frame_stack: int = Field(default=1, ge=1, le=64, description="VecFrameStack: the last N observations stacked (1: none)")

    @model_validator(mode="before")
    @classmethod
    def _zoo_owned(cls, data: Any) -> Any:
        if isinstance(data, dict):
            for name, instead in ZOO_OWNED.items():
                if name in data:
                    raise ValueError(f"'{name}' is set by the zoo, not in the agent block; set {instead}")
        return data


class SDEParams(Params):
    use_sde: bool = Field(default=False, description="generalized state-dependent exploration instead of action noise")
    sde_sample_freq: int = Field(default=-1, ge=-1, description="steps between gSDE noise matrices (-1: once per rollout)")


class RolloutBufferParams(Params):
    rollout_buffer_class: ClassName("rollout buffer", ROLLOUT_BUFFERS) | None = Field(
        default=None, description="SB3 rollout buffer by name (default: chosen from the observation space)")
    rollout_buffer_kwargs: Kwargs = Field(default=None, description="keyword arguments of the rollout buffer")


class OnPolicyParams(CommonParams):
    n_steps: int = Field(default=2048, ge=1, le=10**7, description="steps per env per rollout")
    gae_lambda: float = Field(default=0.95, ge=0, le=1, description="GAE's lambda (1: Monte Carlo advantages)")
    ent_coef: float = Field(default=0.0, ge=0, le=10, description="entropy bonus coefficient")
    vf_coef: float = Field(default=0.5, ge=0, le=10, description="value loss coefficient")
    max_grad_norm: float = Field(default=0.5, gt=0, description="gradient clipping norm")
    normalize_advantage: bool = Field(default=True, description="standardize advantages per minibatch")


class PPOCoreParams(OnPolicyParams):
    policy_kwargs: ActorCriticKwargs = Field(default_factory=ActorCriticKwargs)
    learning_rate: LearningRate = Field(default=3e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    batch_size: int = Field(default=64, ge=1, le=10**7, description="minibatch size")
    n_epochs: int = Field(default=10, ge=1, le=1000, description="passes over each rollout")
    clip_range: ClipRange = Field(default=0.2, description="PPO's clipping of the probability ratio, or 'lin_X'")
    clip_range_vf: ClipRange | None = Field(default=None, description="clipping of the value change, or 'lin_X' (none by default)")
    target_kl: float | None = Field(default=None, gt=0, description="stop an update's epochs early past this KL divergence")


class PPOParams(PPOCoreParams, SDEParams, RolloutBufferParams):
    """Proximal Policy Optimization."""


class MaskablePPOParams(PPOCoreParams):
    """sb3-contrib's MaskablePPO: PPO that samples only the actions the env's action_masks() allows."""

    policy_kwargs: MaskableKwargs = Field(default_factory=MaskableKwargs)
    rollout_buffer_class: ClassName("rollout buffer", MASKABLE_ROLLOUT_BUFFERS) | None = Field(
        default=None, description="sb3-contrib maskable rollout buffer by name (default: chosen from the observation space)")
    rollout_buffer_kwargs: Kwargs = Field(default=None, description="keyword arguments of the rollout buffer")


class RecurrentPPOParams(PPOCoreParams, SDEParams):
    """sb3-contrib's RecurrentPPO: PPO with an LSTM in the policy and value networks."""

    policy: RecurrentPolicy = Field(default="MlpLstmPolicy", description="sb3-contrib LSTM policy class")
    policy_kwargs: RecurrentKwargs = Field(default_factory=RecurrentKwargs)
    n_steps: int = Field(default=128, ge=1, le=10**7, description="steps per env per rollout")
    batch_size: int = Field(default=128, ge=1, le=10**7, description="minibatch size (sequences are kept whole)")


class A2CParams(OnPolicyParams, SDEParams, RolloutBufferParams):
    """Advantage Actor-Critic."""

    policy_kwargs: ActorCriticKwargs = Field(default_factory=ActorCriticKwargs)
    learning_rate: LearningRate = Field(default=7e-4, description="RMSprop step size, or 'lin_X' falling linearly from X to 0")
    n_steps: int = Field(default=5, ge=1, le=10**7, description="steps per env per update")
    gae_lambda: float = Field(default=1.0, ge=0, le=1, description="GAE's lambda (1: Monte Carlo advantages)")
    use_rms_prop: bool = Field(default=True, description="RMSprop (True) or Adam (False)")
    rms_prop_eps: float = Field(default=1e-5, gt=0, description="RMSprop's epsilon")
    normalize_advantage: bool = Field(default=False, description="standardize advantages per update")


TrainFrequency = Annotated[
    Annotated[int, Strict(), Tag("[number]")] | Annotated[tuple[Annotated[int, Strict()], Literal["step", "episode"]], Tag("[pair]")],
    Discriminator(lambda value: "[pair]" if isinstance(value, (list, tuple)) else "[number]"),
]


class OffPolicyParams(CommonParams):
    buffer_size: int = Field(default=1_000_000, ge=1, le=10**8, description="replay buffer capacity (transitions)")
    learning_starts: int = Field(default=100, ge=0, description="steps of experience collected before the first update")
    train_freq: TrainFrequency = Field(default=1, description="env steps between updates, or [N, step] / [N, episode]")
    gradient_steps: int = Field(default=1, ge=-1, description="gradient steps per update (-1: as many as env steps)")
    replay_buffer_class: ClassName("replay buffer", REPLAY_BUFFERS) | None = Field(
        default=None, description="SB3 replay buffer by name (default: chosen from the observation space)")
    replay_buffer_kwargs: Kwargs = Field(default=None, description="keyword arguments of the replay buffer (HER's n_sampled_goal...)")
    optimize_memory_usage: bool = Field(default=False, description="store each observation once (not with HER)")
    n_steps: int = Field(default=1, ge=1, le=1000, description="n-step returns (1: one-step TD targets)")

    @model_validator(mode="after")
    def _frequency(self):
        if isinstance(self.train_freq, tuple) and self.train_freq[0] < 1 or isinstance(self.train_freq, int) and self.train_freq < 1:
            raise ValueError(f"train_freq counts at least 1 step or episode (given {self.train_freq})")
        return self


class DQNParams(OffPolicyParams):
    """Deep Q-Network."""

    policy_kwargs: QNetworkKwargs = Field(default_factory=QNetworkKwargs)
    learning_rate: LearningRate = Field(default=1e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    batch_size: int = Field(default=32, ge=1, le=10**6, description="minibatch size")
    tau: float = Field(default=1.0, gt=0, le=1, description="target network update coefficient (1: hard copy)")
    train_freq: TrainFrequency = Field(default=4, description="env steps between updates, or [N, step] / [N, episode]")
    target_update_interval: int = Field(default=10_000, ge=1, description="env steps between target network updates")
    exploration_fraction: float = Field(default=0.1, gt=0, le=1, description="share of the budget over which epsilon falls")
    exploration_initial_eps: float = Field(default=1.0, ge=0, le=1, description="epsilon at the start")
    exploration_final_eps: float = Field(default=0.05, ge=0, le=1, description="epsilon after exploration_fraction")
    max_grad_norm: float = Field(default=10.0, gt=0, description="gradient clipping norm")


class QRDQNParams(DQNParams):
    """sb3-contrib's QR-DQN: DQN learning quantiles of the return."""

    policy_kwargs: QuantileKwargs = Field(default_factory=QuantileKwargs)
    learning_rate: LearningRate = Field(default=5e-5, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    exploration_fraction: float = Field(default=0.005, gt=0, le=1, description="share of the budget over which epsilon falls")
    exploration_final_eps: float = Field(default=0.01, ge=0, le=1, description="epsilon after exploration_fraction")
    max_grad_norm: float | None = Field(default=None, gt=0, description="gradient clipping norm (none by default)")


class ActionNoise(Params):
    """Exploration noise added to a continuous action while training."""

    type: Literal["normal", "ornstein-uhlenbeck"] = Field(description="Gaussian noise, or Ornstein-Uhlenbeck (correlated in time)")
    std: float = Field(gt=0, le=100, description="standard deviation, the same for every action dimension")


class ContinuousParams(OffPolicyParams):
    batch_size: int = Field(default=256, ge=1, le=10**6, description="minibatch size")
    tau: float = Field(default=0.005, gt=0, le=1, description="soft update coefficient of the target networks")
    action_noise: ActionNoise | None = Field(default=None, description="exploration noise while training (none by default)")


class SACParams(ContinuousParams, SDEParams):
    """Soft Actor-Critic (continuous actions)."""

    policy_kwargs: SACKwargs = Field(default_factory=SACKwargs)
    learning_rate: LearningRate = Field(default=3e-4, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    ent_coef: float | str = Field(
        default="auto", description="entropy coefficient, 'auto' to learn it, or 'auto_X' to learn it from X")
    target_update_interval: int = Field(default=1, ge=1, description="gradient steps between target network updates")
    target_entropy: Literal["auto"] | float = Field(default="auto", description="entropy target when learning ent_coef ('auto': -dim(actions))")
    use_sde_at_warmup: bool = Field(default=False, description="gSDE instead of uniform sampling before learning starts")

    @field_validator("ent_coef")
    @classmethod
    def _entropy_coefficient(cls, value: float | str) -> float | str:
        if isinstance(value, str) and value != "auto" and not re.fullmatch(r"auto_[0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?", value):
            raise ValueError(f"ent_coef is a number, 'auto' or 'auto_<initial>' such as 'auto_0.1' (given {value!r})")
        if isinstance(value, float) and value < 0:
            raise ValueError(f"ent_coef is not negative (given {value})")
        return value


class TD3Params(ContinuousParams):
    """Twin Delayed DDPG (continuous actions)."""

    policy_kwargs: ActorCriticQKwargs = Field(default_factory=ActorCriticQKwargs)
    learning_rate: LearningRate = Field(default=1e-3, description="Adam step size, or 'lin_X' falling linearly from X to 0")
    policy_delay: int = Field(default=2, ge=1, description="critic updates per actor and target update")
    target_policy_noise: float = Field(default=0.2, ge=0, description="std of the noise added to target actions")
    target_noise_clip: float = Field(default=0.5, ge=0, description="clip of the target action noise")
