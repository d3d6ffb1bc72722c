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
        if bound <= 0:
            raise ValueError("bound must be positive")
        if bound & (bound - 1) == 0:
            return (bound * self.next_bits(31)) >> 31
        while True:
            bits = self.next_bits(31)
            val = bits % bound
            if bits - val + (bound - 1) < 1 << 31:
                return val
