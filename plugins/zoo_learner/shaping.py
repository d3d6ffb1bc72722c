"""Reward shapings by name: the transforms the substrate's agents apply to raw rewards before learning.

None clips. The papers name them differently and share some: GDI's h_log, DiCE's h (read
literally) and LBC's RS2 are one transform, ``log`` here. :data:`SHAPINGS` holds each transform
once; an agent whose spec speaks its paper's vocabulary (DiCE's ``reward_shape``, LBC's ``rs1``
to ``rs3``) maps those words onto these names.
"""

from __future__ import annotations

from collections.abc import Callable

import torch


def h_log(r: torch.Tensor) -> torch.Tensor:
    """log(|r| + 1) * (2 * 1[r >= 0] - 1[r < 0]): positive rewards doubled in log scale."""
    return torch.log1p(r.abs()) * torch.where(r >= 0, 2.0, -1.0).to(r.dtype)


def h_signed_log(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * log(|r| + 1)."""
    return torch.sign(r) * torch.log1p(r.abs())


def h_pow(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * ((|r| + 1)^0.25 - 1) + 0.001 * r."""
    return torch.sign(r) * ((r.abs() + 1.0) ** 0.25 - 1.0) + 0.001 * r


def h_sqrt(r: torch.Tensor) -> torch.Tensor:
    """sign(r) * (sqrt(|r| + 1) - 1) + 0.001 * r."""
    return torch.sign(r) * (torch.sqrt(r.abs() + 1.0) - 1.0) + 0.001 * r


def h_tanh(r: torch.Tensor) -> torch.Tensor:
    """0.3 * min(tanh r, 0) + 5 * max(tanh r, 0): bounded in [-0.3, 5]."""
    t = torch.tanh(r)
    return 0.3 * t.clamp(max=0.0) + 5.0 * t.clamp(min=0.0)


def identity(r: torch.Tensor) -> torch.Tensor:
    return r


SHAPINGS: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {
    "log": h_log, "signed_log": h_signed_log, "pow": h_pow, "sqrt": h_sqrt, "tanh": h_tanh, "none": identity,
}
