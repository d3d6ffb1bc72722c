"""Reward transforms applied to raw rewards before learning (no clipping)."""

from __future__ import annotations

from typing import Callable

import torch


def h_log(r: torch.Tensor) -> torch.Tensor:
    """log(|r| + 1) * (2 * 1[r >= 0] - 1[r < 0]): positive rewards doubled in log scale."""
    return torch.log1p(r.abs()) * torch.where(r >= 0, 2.0, -1.0).to(r.dtype)


def h_pow(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * ((|r| + 1)^0.25 - 1) + 0.001 * r."""
    return torch.sign(r) * ((r.abs() + 1.0) ** 0.25 - 1.0) + 0.001 * r


def identity(r: torch.Tensor) -> torch.Tensor:
    return r


SHAPINGS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"log": h_log, "pow": h_pow, "none": identity}
