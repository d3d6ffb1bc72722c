"""Recurrent dueling networks: a torso (MLP, cells, MinAtar conv, Nature CNN, IMPALA ResNet), an LSTM, A/V heads.

Every network maps observations and a flat recurrent state (h and c side by side) to advantages
``adv`` (..., heads, actions) and values ``value`` (..., heads). `step` serves actors one step at
a time; `unroll` serves the learner: it runs the torso on the whole sequence at once, burns the
state in without gradient, and skips the state update on rows marked invalid (left padding).
With auxiliary tasks on, a network also holds forward and inverse dynamics models on its torso's
embedding (`DynamicsHeads`); `unroll_embedded` returns that embedding beside the heads.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import nn

from .params import AuxiliaryParams, NetworkParams


def scale_obs(obs: torch.Tensor) -> torch.Tensor:
    """The torso's float input: uint8 pixels divided by 255, anything else as float32."""
    if obs.dtype == torch.uint8:  # convert, then divide in place: the same floats as torch.div, and faster
        return obs.float().div_(255.0)
    return obs.float()


class Torso(nn.Sequential):
    """Layers applied in turn to the raw observation, scaled by `scale_obs` first."""

    def forward(self, obs: torch.Tensor) -> torch.Tensor:
        return super().forward(scale_obs(obs))


def _mlp(sizes: Sequence[int]) -> nn.Sequential:
    layers: list[nn.Module] = []
    for a, b in zip(sizes[:-1], sizes[1:]):
        layers += [nn.Linear(a, b), nn.ReLU()]
    return nn.Sequential(*layers)


class _Residual(nn.Module):
    def __init__(self, channels: int):
        super().__init__()
        self.conv1 = nn.Conv2d(channels, channels, 3, padding=1)
        self.conv2 = nn.Conv2d(channels, channels, 3, padding=1)

    def forward(self, x):
        # IMPALA's residual block (Espeholt et al. 2018, Fig. 3): ReLU before each convolution, the
        # identity added after the second, so the block starts near the identity.
        return x + self.conv2(torch.relu(self.conv1(torch.relu(x))))


def _impala(in_channels: int, channels: Sequence[int], blocks: int) -> nn.Sequential:
    # IMPALA's "deep" torso (Espeholt et al. 2018, Fig. 3): per stage a 3x3 convolution, a 3x3 max-pool
    # of stride 2 (halving height and width) and `blocks` residual blocks; a final ReLU, flattened.
    layers: list[nn.Module] = []
    for out in channels:
        layers += [nn.Conv2d(in_channels, out, 3, padding=1), nn.MaxPool2d(3, stride=2, padding=1)]
        layers += [_Residual(out) for _ in range(blocks)]
        in_channels = out
    return nn.Sequential(*layers, nn.ReLU(), nn.Flatten())


def make_torso(params: NetworkParams, obs_shape: tuple[int, ...]) -> tuple[nn.Module, int]:
    """The torso for observations of `obs_shape` and its output size (not the cells torso: see CellsRecurrentNet)."""
    if params.torso == "cells":
        raise ValueError("the cells torso comes with its own advantage head: build it with build_network")
    if params.torso == "auto":
        params = params.model_copy(update={"torso": "mlp" if len(obs_shape) == 1 else "impala"})
    if params.torso == "mlp":
        if len(obs_shape) != 1:
            raise ValueError(f"the mlp torso takes flat observations; got shape {obs_shape} (use a conv torso)")
        return Torso(*_mlp([obs_shape[0], *params.hidden])), params.hidden[-1]
    if len(obs_shape) != 3:
        raise ValueError(f"the {params.torso} torso takes (channels, height, width) observations; got {obs_shape}")
    # MinAtar's one 16-channel 3x3 convolution (Young and Tian 2019); the Nature DQN torso (Mnih et al.
    # 2015: 32 8x8/4, 64 4x4/2, 64 3x3/1). A zero observation sizes the flattened output.
    if params.torso == "minatar":
        conv = nn.Sequential(nn.Conv2d(obs_shape[0], 16, 3), nn.ReLU(), nn.Flatten())
    elif params.torso == "nature":
        conv = nn.Sequential(nn.Conv2d(obs_shape[0], 32, 8, stride=4), nn.ReLU(), nn.Conv2d(32, 64, 4, stride=2),
                             nn.ReLU(), nn.Conv2d(64, 64, 3), nn.ReLU(), nn.Flatten())
    else:
        conv = _impala(obs_shape[0], params.impala_channels, params.impala_blocks)
    with torch.no_grad():
        flat = conv(torch.zeros(1, *obs_shape)).shape[1]
    return Torso(conv, nn.Linear(flat, params.embedding), nn.ReLU()), params.embedding


def _head(inputs: int, hidden: int, outputs: int) -> nn.Module:
    if hidden == 0:
        return nn.Linear(inputs, outputs)
    return nn.Sequential(nn.Linear(inputs, hidden), nn.ReLU(), nn.Linear(hidden, outputs))


@dataclass(frozen=True)
class Dynamics:
    """One network's dynamics predictions on the T transitions of T + 1 rows (None where the task is off):
    ``predicted`` (T, B, E) next embeddings, ``target`` (T, B, E) the embeddings of the next rows,
    ``logits`` (T, B, A) of the action taken between them."""

    predicted: torch.Tensor | None
    target: torch.Tensor
    logits: torch.Tensor | None


class DynamicsHeads(nn.Module):
    """The auxiliary models on a torso's embedding z: forward (z_t, one-hot a_t) -> z_t+1 and
    inverse (z_t, z_t+1) -> logits of a_t, each an MLP with one hidden layer (or linear)."""

    def __init__(self, features: int, actions: int, params: AuxiliaryParams):
        super().__init__()
        self.actions = actions
        self.forward_model = _head(features + actions, params.hidden, features) if params.forward else None
        self.inverse_model = _head(2 * features, params.hidden, actions) if params.inverse else None

    def forward(self, z: torch.Tensor, action: torch.Tensor) -> Dynamics:
        """Predictions for embeddings z (T+1, B, E) of consecutive rows and the actions (T, B) taken on the first T."""
        now, after = z[:-1], z[1:]
        predicted = logits = None
        if self.forward_model is not None:
            taken = nn.functional.one_hot(action, self.actions).to(z.dtype)
            predicted = self.forward_model(torch.cat([now, taken], dim=-1))
        if self.inverse_model is not None:
            logits = self.inverse_model(torch.cat([now, after], dim=-1))
        return Dynamics(predicted, after, logits)


class DuelingRecurrentNet(nn.Module):
    """Torso -> LSTM -> `heads` pairs of advantage and value heads; dynamics models on the torso's
    output when `auxiliary` switches a task on."""

    def __init__(self, params: NetworkParams, obs_shape: tuple[int, ...], actions: int, heads: int = 1,
                 auxiliary: AuxiliaryParams | None = None):
        super().__init__()
        self.heads, self.actions = heads, actions
        self.torso, features = self._make_torso(params, tuple(obs_shape))
        self.hidden = params.lstm
        self.core = nn.LSTMCell(features, params.lstm) if params.lstm else None
        out = params.lstm or features
        self.adv_head = self._make_adv_head(params, out)
        self.value_head = _head(out, params.head_hidden, heads)
        on = auxiliary is not None and (auxiliary.forward > 0 or auxiliary.inverse > 0)
        self.dynamics_heads = DynamicsHeads(features, actions, auxiliary) if on else None

    def _make_torso(self, params: NetworkParams, obs_shape: tuple[int, ...]) -> tuple[nn.Module, int]:
        return make_torso(params, obs_shape)

    def _make_adv_head(self, params: NetworkParams, inputs: int) -> nn.Module:
        return _head(inputs, params.head_hidden, self.heads * self.actions)

    # The recurrent state is h and c side by side in one flat vector, so that actors can store it in
    # each sequence's row as a plain array and replay hands it back to `unroll` unchanged.
    @property
    def state_size(self) -> int:
        return 2 * self.hidden

    def initial_state(self, batch: int) -> torch.Tensor:
        return torch.zeros(batch, self.state_size)

    def _embed(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor | None]:
        """(the core's input, anything else the heads need, batch-first or None)."""
        return self.torso(obs), None

    def _heads(self, z: torch.Tensor, extra: torch.Tensor | None) -> tuple[torch.Tensor, torch.Tensor]:
        adv = self.adv_head(z).unflatten(-1, (self.heads, self.actions))
        return adv, self.value_head(z)

    def _core(self, z: torch.Tensor, state: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        if self.core is None:
            return z, state
        h, c = self.core(z, (state[:, : self.hidden], state[:, self.hidden:]))
        return h, torch.cat([h, c], dim=1)

    def step(self, obs: torch.Tensor, state: torch.Tensor):
        """One step for a batch: ((adv (B, heads, A), value (B, heads)), next state)."""
        z, extra = self._embed(obs)
        out, state = self._core(z, state)
        return self._heads(out, extra), state

    def unroll(self, obs: torch.Tensor, state: torch.Tensor, valid: torch.Tensor, burn_in: int):
        """Heads on rows burn_in.. of a (L, B, ...) sequence; rows before are burn-in without gradient."""
        return self.unroll_embedded(obs, state, valid, burn_in)[0]

    def unroll_embedded(self, obs: torch.Tensor, state: torch.Tensor, valid: torch.Tensor, burn_in: int):
        """(`unroll`'s heads, (the torso's embeddings of rows burn_in.., (L - burn_in, B, E)),)."""
        # The torso is feedforward, so it runs on all L * B rows as one batch; only the LSTM needs the
        # time loop. Burn-in (R2D2, Kapturowski et al. 2019) runs the core from the stored state without
        # gradient, so the trained rows start from a state the current weights produced rather than
        # the stale one the actor stored. `valid` is 0 on left padding: there the state is kept, so
        # the stored state (the episode's initial one) reaches the first real row unchanged.
        length, batch = obs.shape[:2]
        z, extra = self._embed(obs.flatten(0, 1))
        z = z.unflatten(0, (length, batch))
        extra = None if extra is None else extra.unflatten(0, (length, batch))[burn_in:]
        if self.core is None:
            return self._heads(z[burn_in:], extra), (z[burn_in:],)
        keep = valid.unsqueeze(-1)
        with torch.no_grad():
            for t in range(burn_in):
                _, new = self._core(z[t], state)
                state = torch.where(keep[t], new, state)
        outs = []
        for t in range(burn_in, length):
            out, new = self._core(z[t], state)
            state = torch.where(keep[t], new, state)
            outs.append(out)
        return self._heads(torch.stack(outs), extra), (z[burn_in:],)

    def dynamics(self, embeddings: tuple[torch.Tensor, ...], action: torch.Tensor) -> list[Dynamics]:
        """The dynamics predictions on `unroll_embedded`'s embeddings and the actions (T, B) of their first T rows."""
        if self.dynamics_heads is None:
            raise ValueError("this network has no dynamics models: build it with an auxiliary task switched on")
        return [self.dynamics_heads(embeddings[0], action)]


class CellEncoder(nn.Module):
    """Embeddings of cells with weights shared across cells, and a summary of the whole observation.

    A flat observation of `cells` blocks of `cell_features` features followed by global features
    (GOHR: the board's 36 cells, then the last move and the buckets that last took each shape and
    color). A cell's embedding sees its own features, its position (a learned vector) and the
    global features; the summary is the mean of the cell embeddings beside the global features.
    """

    def __init__(self, params: NetworkParams, size: int):
        super().__init__()
        self.cells, self.features = params.cells, params.cell_features
        self.global_size = size - self.cells * self.features
        if self.global_size < 0:
            raise ValueError(f"the cells torso needs at least cells * cell_features = {self.cells * self.features} "
                             f"observation features; got {size}")
        width = params.hidden[0]
        self.cell_in = nn.Linear(self.features, width)
        self.global_in = nn.Linear(self.global_size, width, bias=False) if self.global_size else None
        self.position = nn.Parameter(0.1 * torch.randn(self.cells, width))
        self.cell_mlp = _mlp(params.hidden)
        self.cell_size = params.hidden[-1]
        self.summary = nn.Sequential(nn.Linear(self.cell_size + self.global_size, params.embedding), nn.ReLU())

    def forward(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """(summary (B, embedding), cell embeddings (B, cells, cell_size)) of observations (B, size)."""
        split = self.cells * self.features
        cells, rest = obs[:, :split].unflatten(1, (self.cells, self.features)), obs[:, split:]
        h = self.cell_in(cells) + self.position
        if self.global_in is not None:
            h = h + self.global_in(rest).unsqueeze(1)
        embedded = self.cell_mlp(torch.relu(h))
        return self.summary(torch.cat([embedded.mean(1), rest], dim=1)), embedded


class CellsRecurrentNet(DuelingRecurrentNet):
    """A dueling network whose actions act on one cell each (action = cell * per_cell + k, as GOHR's
    (cell, bucket)): each cell's advantages come from one head shared by all cells, applied to the
    cell's embedding beside the core's output; the value comes from the core's output."""

    def _make_torso(self, params: NetworkParams, obs_shape: tuple[int, ...]) -> tuple[nn.Module, int]:
        if len(obs_shape) != 1:
            raise ValueError(f"the cells torso takes flat observations; got shape {obs_shape}")
        if self.actions % params.cells:
            raise ValueError(f"the cells torso needs a number of actions divisible by cells = {params.cells}; "
                             f"got {self.actions}")
        encoder = CellEncoder(params, obs_shape[0])
        return encoder, params.embedding

    def _make_adv_head(self, params: NetworkParams, inputs: int) -> nn.Module:
        self.per_cell = self.actions // params.cells
        return _head(self.torso.cell_size + inputs, params.head_hidden, self.heads * self.per_cell)

    def _embed(self, obs: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        return self.torso(scale_obs(obs))

    def _heads(self, z: torch.Tensor, cells: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        # Each cell's `per_cell` advantages come from one head shared across cells, fed the cell's own
        # embedding beside the core's summary; the result is reordered to (..., heads, cells * per_cell)
        # so that action index = cell * per_cell + k, as the env numbers its actions.
        both = torch.cat([cells, z.unsqueeze(-2).expand(*cells.shape[:-1], z.shape[-1])], dim=-1)
        adv = self.adv_head(both).unflatten(-1, (self.heads, self.per_cell))  # (..., cells, heads, per_cell)
        return adv.transpose(-3, -2).flatten(-2), self.value_head(z)


class NetworkGroup(nn.Module):
    """Several single-head networks with separate parameters, seen as one network with their heads side by side."""

    def __init__(self, nets: Sequence[DuelingRecurrentNet]):
        super().__init__()
        self.nets = nn.ModuleList(nets)
        self.sizes = [n.state_size for n in nets]

    @property
    def state_size(self) -> int:
        return sum(self.sizes)

    def initial_state(self, batch: int) -> torch.Tensor:
        return torch.zeros(batch, self.state_size)

    def step(self, obs, state):
        results = [net.step(obs, s) for net, s in zip(self.nets, state.split(self.sizes, dim=1))]
        adv = torch.cat([r[0][0] for r in results], dim=-2)
        value = torch.cat([r[0][1] for r in results], dim=-1)
        return (adv, value), torch.cat([r[1] for r in results], dim=1)

    def unroll(self, obs, state, valid, burn_in):
        return self.unroll_embedded(obs, state, valid, burn_in)[0]

    def unroll_embedded(self, obs, state, valid, burn_in):
        """(the heads side by side, each network's embeddings in turn)."""
        results = [net.unroll_embedded(obs, s, valid, burn_in)
                   for net, s in zip(self.nets, state.split(self.sizes, dim=1))]
        adv = torch.cat([heads[0] for heads, _ in results], dim=-2)
        value = torch.cat([heads[1] for heads, _ in results], dim=-1)
        return (adv, value), tuple(z for _, embeddings in results for z in embeddings)

    def dynamics(self, embeddings, action):
        """Each network's dynamics predictions on its own embeddings."""
        return [d for net, z in zip(self.nets, embeddings) for d in net.dynamics((z,), action)]


def build_network(params: NetworkParams, obs_shape, actions: int, heads: int = 1, separate: bool = False,
                  auxiliary: AuxiliaryParams | None = None) -> nn.Module:
    """One network with `heads` dueling heads, or with `separate`, `heads` networks with one head each;
    each with dynamics models on its torso when `auxiliary` switches a task on."""
    kind = CellsRecurrentNet if params.torso == "cells" else DuelingRecurrentNet
    if separate and heads > 1:
        return NetworkGroup([kind(params, obs_shape, actions, 1, auxiliary) for _ in range(heads)])
    return kind(params, obs_shape, actions, heads, auxiliary)
