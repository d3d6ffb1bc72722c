"""Base bits plus the logical AND of every pair of them (BASS and RAM), as sorted sparse indices."""

from __future__ import annotations

from functools import lru_cache

import numpy as np

CACHED_UP_TO = 128  # the pair positions of up to this many active bits are kept (at most 130 KB each)


def pairs_size(n_base: int) -> int:
    """Base bits plus C(n_base, 2) pairs."""
    return n_base + n_base * (n_base - 1) // 2


def pair_index(i, j, n_base: int):
    """The index of the pair of base bits i < j: n_b + i*n_b - i(i+1)/2 + (j - i - 1)."""
    return row_offset(i, n_base) + np.asarray(j, np.int64)


def row_offset(i, n_base: int):
    """pair_index(i, j) - j: the pairs of bit i with the bits after it are consecutive from here."""
    i = np.asarray(i, np.int64)
    return n_base + i * n_base - i * (i + 1) // 2 - i - 1


@lru_cache(maxsize=CACHED_UP_TO)
def _cached_upper_pairs(m: int) -> tuple[np.ndarray, np.ndarray]:
    first, second = np.triu_indices(m, k=1)
    first.flags.writeable = second.flags.writeable = False
    return first, second


def upper_pairs(m: int) -> tuple[np.ndarray, np.ndarray]:
    """(first, second): the positions k < l of all pairs among m items, k-major."""
    return _cached_upper_pairs(m) if m <= CACHED_UP_TO else np.triu_indices(m, k=1)


def with_pairs(base: np.ndarray, n_base: int) -> np.ndarray:
    """Active base bits (sorted, distinct) -> those bits followed by the indices of all their pairs (ascending)."""
    base = np.asarray(base, np.int64)
    first, second = upper_pairs(len(base))
    return np.concatenate([base, row_offset(base, n_base)[first] + base[second]])
