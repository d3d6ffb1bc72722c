"""Base bits plus the logical AND of every pair of them (BASS and RAM), as sorted sparse indices."""

from __future__ import annotations

import numpy as np


def pairs_size(n_base: int) -> int:
    """Base bits plus C(n_base, 2) pairs."""
    return n_base + n_base * (n_base - 1) // 2


def pair_index(i, j, n_base: int):
    """The index of the pair of base bits i < j: n_b + i*n_b - i(i+1)/2 + (j - i - 1)."""
    i, j = np.asarray(i, np.int64), np.asarray(j, np.int64)
    return n_base + i * n_base - i * (i + 1) // 2 + (j - i - 1)


def with_pairs(base: np.ndarray, n_base: int) -> np.ndarray:
    """Active base bits (sorted, distinct) -> those bits followed by the indices of all their pairs."""
    base = np.asarray(base, np.int64)
    first, second = np.triu_indices(len(base), k=1)
    return np.concatenate([base, pair_index(base[first], base[second], n_base)])
