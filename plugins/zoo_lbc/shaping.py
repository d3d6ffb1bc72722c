"""The members' reward shapings (LBC Table 3), applied to raw per-step rewards of one member's learner."""

from __future__ import annotations

from typing import Callable

import torch


def rs1(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * (sqrt(|r| + 1) - 1) + 0.001 * r."""
    return torch.sign(r) * (torch.sqrt(r.abs() + 1.0) - 1.0) + 0.001 * r


def rs2(r: torch.Tensor) -> torch.Tensor:
    """log(|r| + 1) * (2 * 1[r >= 0] - 1[r < 0]) (log scaling, positive rewards doubled)."""
    return torch.log1p(r.abs()) * torch.where(r >= 0, 2.0, -1.0).to(r.dtype)


def rs3(r: torch.Tensor) -> torch.Tensor:
    """0.3 * min(tanh r, 0) + 5 * max(tanh r, 0)."""
    t = torch.tanh(r)
    return 0.3 * t.clamp(max=0.0) + 5.0 * t.clamp(min=0.0)


SHAPINGS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"rs1": rs1, "rs2": rs2, "rs3": rs3, "none": lambda r: r}
