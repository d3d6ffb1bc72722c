"""Seeding and the global random states a checkpoint carries."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np

RNG_FILE = "rng.pt"


def seed_everything(seed: int) -> None:
    """Seed Python's, NumPy's and torch's global generators."""
    import torch

    random.seed(seed)
    np.random.seed(seed % 2**32)
    torch.manual_seed(seed)


def save_rng_state(directory: Path) -> None:
    import torch

    name, keys, position, has_gauss, cached = np.random.get_state()
    state = {
        "python": random.getstate(),
        "numpy": (name, torch.from_numpy(keys.astype(np.int64)), int(position), int(has_gauss), float(cached)),
        "torch": torch.get_rng_state(),
    }
    torch.save(state, Path(directory) / RNG_FILE)


def load_rng_state(directory: Path) -> None:
    import torch

    state = torch.load(Path(directory) / RNG_FILE, weights_only=True)
    version, internal, gauss = state["python"]
    random.setstate((version, tuple(internal), gauss))
    name, keys, position, has_gauss, cached = state["numpy"]
    np.random.set_state((name, keys.numpy().astype(np.uint32), position, has_gauss, cached))
    torch.set_rng_state(state["torch"])
