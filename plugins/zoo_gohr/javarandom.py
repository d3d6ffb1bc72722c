"""A bit-exact port of ``java.util.Random`` (the parts the board generator uses)."""
from __future__ import annotations

_MULT = 0x5DEECE66D
_MASK = (1 << 48) - 1


class JavaRandom:
    __slots__ = ("_seed",)

    def __init__(self, seed: int):
        self._seed = (seed ^ _MULT) & _MASK

    def next_bits(self, bits: int) -> int:
        self._seed = (self._seed * _MULT + 0xB) & _MASK
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
            seed = (seed * _MULT + 0xB) & _MASK
            bits = seed >> 17                               # next(31), never negative
            if bound & (bound - 1) == 0:
                append((bound * bits) >> 31)
                continue
            val = bits % bound
            while bits - val + (bound - 1) >= 1 << 31:     # Java's rejection of the biased tail
                seed = (seed * _MULT + 0xB) & _MASK
                bits = seed >> 17
                val = bits % bound
            append(val)
        self._seed = seed
        return out
