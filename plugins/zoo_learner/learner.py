"""The learner: AdamW with warm-up and linear decay, gradient clipping, and weight pushes to a parameter server."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch

from .contracts import LossFn
from .params import OptimizerParams


class ParameterServer:
    """Versioned copies of the learner's weights; actors pull, the learner pushes.

    In one process this is a dict of cloned tensors; a distributed backend replaces it with a
    remote object exposing the same two methods.
    """

    def __init__(self, params: dict[str, torch.Tensor]):
        self.version = 0
        self.params = {k: v.detach().clone() for k, v in params.items()}

    def push(self, params: dict[str, torch.Tensor]) -> None:
        self.params = {k: v.detach().clone() for k, v in params.items()}
        self.version += 1

    def pull(self) -> tuple[int, dict[str, torch.Tensor]]:
        return self.version, self.params


def time_major(batch: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """A sampled batch as tensors, sequence fields (L, B, ...) and per-sequence fields (B, ...)."""
    out = {}
    for name, value in batch.items():
        tensor = torch.from_numpy(np.ascontiguousarray(value))
        out[name] = tensor if name in ("state", "behavior", "arm") else tensor.transpose(0, 1)
    return out


class Learner:
    """Applies an agent's loss to sampled batches; pushes weights every `push_every` updates."""

    def __init__(self, net: torch.nn.Module, loss_fn: LossFn, params: OptimizerParams, *, planned_updates: int,
                 server: ParameterServer, push_every: int):
        self.net, self.loss_fn, self.params = net, loss_fn, params
        self.server, self.push_every = server, push_every
        self.planned = max(1, planned_updates)
        self.warmup = int(params.warmup * self.planned) if params.warmup < 1 else int(params.warmup)
        self.optimizer = torch.optim.AdamW(net.parameters(), lr=params.lr, betas=params.betas, eps=params.eps,
                                           weight_decay=params.weight_decay)
        self.updates = 0

    def schedule(self, update: int) -> tuple[float, float]:
        """(learning rate, weight decay) at `update`: linear warm-up, then linear decay to 0 at the planned end."""
        lr, wd = self.params.lr, self.params.weight_decay
        if update < self.warmup:
            lr *= (update + 1) / self.warmup
        elif self.params.decay:
            lr *= max(0.0, (self.planned - update) / max(1, self.planned - self.warmup))
        if self.params.decay:
            wd *= max(0.0, 1.0 - update / self.planned)
        return lr, wd

    def update(self, batch: dict[str, np.ndarray]) -> dict[str, float]:
        """One gradient step on a batch; returns the loss's diagnostics plus lr and gradient norm."""
        lr, wd = self.schedule(self.updates)
        for group in self.optimizer.param_groups:
            group["lr"], group["weight_decay"] = lr, wd
        loss, metrics = self.loss_fn(self.net, time_major(batch))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.params.clip_norm)
        self.optimizer.step()
        self.updates += 1
        if self.updates % self.push_every == 0:
            self.server.push(self.net.state_dict())
        return {**metrics, "loss": loss.item(), "lr": lr, "grad_norm": float(norm)}

    def state_dict(self) -> dict[str, Any]:
        return {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "updates": self.updates}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.updates = int(state["updates"])
