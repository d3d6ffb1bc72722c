"""A bit-exact port of ``java.util.Random`` (the parts the board generator uses)."""
from __future__ import annotations

_MULT = 0x5DEECE66D
_ADD = 0xB
_MASK = (1 << 48) - 1


def jumps(k: int) -> tuple[list[int], list[int]]:
    """``(A, C)``: the state after draw d (1..k) from state s is ``(A[d-1] * s + C[d-1]) mod 2**48``."""
    a, c, A, C = 1, 0, [], []
    for _ in range(k):
        a, c = a * _MULT & _MASK, (c * _MULT + _ADD) & _MASK
        A.append(a)
        C.append(c)
    return A, C


class JavaRandom:
    __slots__ = ("_seed",)

    def __init__(self, seed: int):
        self._seed = (seed ^ _MULT) & _MASK

    @classmethod
    def from_state(cls, state: int) -> JavaRandom:
        """The generator whose internal 48-bit state is ``state`` (see :attr:`state`)."""
        rng = cls(0)
        rng._seed = state
        return rng

    @property
    def state(self) -> int:
        """The internal 48-bit state (the scrambled seed)."""
        return self._seed

    def next_bits(self, bits: int) -> int:
        self._seed = (self._seed * _MULT + _ADD) & _MASK
        v = self._seed >> (48 - bits)
        return v - (1 << 32) if v >= 1 << 31 else v   # Java (int) cast

    def next_int(self, bound: int) -> int:
        """``Random.nextInt(bound)``: uniform in [0, bound)."""
        return self.next_ints((bound,))[0]

    def next_ints(self, bounds) -> list[int]:
        """``[nextInt(b) for b in bounds]``, in one loop (the generator draws its values in runs)."""
        seed, out = self._seed, []
        append = out.append
        for bound in bounds:
            if bound <= 0:
                raise ValueError("bound must be positive")
            seed = (seed * _MULT + _ADD) & _MASK
            bits = seed >> 17                               # next(31), never negative
            if bound & (bound - 1) == 0:
                append((bound * bits) >> 31)
                continue
            val = bits % bound
            while bits - val + (bound - 1) >= 1 << 31:     # Java's rejection of the biased tail
                seed = (seed * _MULT + _ADD) & _MASK
                bits = seed >> 17
                val = bits % bound
            append(val)
        self._seed = seed
        return out
