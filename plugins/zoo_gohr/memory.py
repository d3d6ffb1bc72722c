"""Episode memory of removed pieces (spec §5.3): p, pc, ps, p.K, q.K, last."""
from __future__ import annotations

EMPTY: frozenset = frozenset()
BUCKET_SETS = tuple(frozenset((b,)) for b in range(4))


class Obj:
    """A piece as an expression value: its properties plus ``pos`` and ``bucket``.

    Equality is identity, like the reference server's objects.
    """
    __slots__ = ("fields", "bucket")

    def __init__(self, fields: dict, bucket):
        self.fields = fields
        self.bucket = bucket

    def __repr__(self) -> str:
        return f"Obj({self.fields})"


def piece_obj(piece, bucket) -> Obj:
    f = dict(piece.props)
    f["pos"] = piece.pos
    f["bucket"] = bucket
    return Obj(f, bucket)


class Memory:
    """Updated on accepted moves only; never reset within an episode."""
    __slots__ = ("p", "last", "by")

    def __init__(self):
        self.p: frozenset = EMPTY            # {bucket of the last removed piece}
        self.last: Obj | None = None
        self.by: dict[str, dict] = {}        # key -> value -> last removed Obj with that value

    def record(self, piece, bucket: int) -> None:
        o = piece_obj(piece, bucket)
        self.p = BUCKET_SETS[bucket]
        self.last = o
        by = self.by
        for k, v in o.fields.items():
            d = by.get(k)
            if d is None:
                by[k] = {v: o}
            else:
                d[v] = o

    def copy(self) -> "Memory":
        m = Memory()
        m.p, m.last = self.p, self.last
        m.by = {k: dict(d) for k, d in self.by.items()}
        return m
