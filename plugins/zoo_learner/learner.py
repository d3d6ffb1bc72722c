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
        # Cloned, not referenced: the optimizer updates the learner's tensors in place, and the actors
        # must keep acting with the version they pulled until their next pull (GDI Algorithm 2's
        # d_pull); that lag is what the stored mu and the V-trace/Retrace corrections account for.
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
        # Linear warm-up from lr / warmup to lr over the first `warmup` updates, then (with `decay`) a
        # linear fall to 0 at the planned last update; AdamW's decoupled weight decay (Loshchilov and
        # Hutter 2019) falls with it from the first update, as the papers' tables ask (GDI Table 6,
        # DiCE Table 5, LBC Table 3).
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
        # One step of the learner loop of GDI's Algorithm 2: the agent's loss on a time-major batch,
        # gradients rescaled to a global L2 norm of at most clip_norm, an AdamW step, and every
        # `push_every` updates (d_push) a copy of the weights for the actors.
        loss, metrics = self.loss_fn(self.net, time_major(batch))
        self.optimizer.zero_grad(set_to_none=True)
        loss.backward()
        norm = torch.nn.utils.clip_grad_norm_(self.net.parameters(), self.params.clip_norm)
        self.optimizer.step()
        self.updates += 1
        if self.updates % self.push_every == 0:
            self.server.push(self.net.state_dict())
        return {**metrics, "loss": loss.item(), "lr": lr, "grad_norm": float(norm)}

    # --- resume plumbing: checkpoint state below; the algorithm is above ---

    def state_dict(self) -> dict[str, Any]:
        return {"net": self.net.state_dict(), "optimizer": self.optimizer.state_dict(), "updates": self.updates}

    def load_state_dict(self, state: dict[str, Any]) -> None:
        self.net.load_state_dict(state["net"])
        self.optimizer.load_state_dict(state["optimizer"])
        self.updates = int(state["updates"])
