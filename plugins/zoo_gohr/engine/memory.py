"""Episode memory of removed pieces: p, pc, ps, p.K, q.K, last (docs/algorithms/gohr-rules.md,
"Variables and memory")."""
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
    """Updated on accepted moves only; never reset within an episode.

    ``p`` is set at once; ``last`` and ``by`` are built on first use from the moves recorded since
    (kept as two plain lists), so rules that only read ``p`` allocate nothing per move, which also
    keeps the garbage collector quiet when thousands of games run side by side.
    """
    __slots__ = ("p", "_last", "_by", "_pieces", "_buckets")

    def __init__(self):
        self.p: frozenset = EMPTY            # {bucket of the last removed piece}
        self._last: Obj | None = None
        self._by: dict[str, dict] = {}       # key -> value -> last removed Obj with that value
        self._pieces: list = []              # moves recorded but not yet in _last/_by
        self._buckets: list[int] = []

    @classmethod
    def restored(cls, last: Obj | None, by: dict[str, dict]) -> Memory:
        """A memory whose ``last`` and ``by`` are as given (``p`` follows from ``last``): the state
        summaries of the vector engine's rule tables, rebuilt for evaluating rules on them."""
        m = cls()
        m._last, m._by = last, by
        m.p = EMPTY if last is None else BUCKET_SETS[last.bucket]
        return m

    def record(self, piece, bucket: int) -> None:
        self.p = BUCKET_SETS[bucket]
        self._pieces.append(piece)
        self._buckets.append(bucket)

    @property
    def last(self) -> Obj | None:
        """The last removed piece (None before the first move)."""
        if self._pieces:
            self._catch_up()
        return self._last

    @property
    def by(self) -> dict[str, dict]:
        """``by[key][value]``: the last removed piece whose ``key`` was ``value``."""
        if self._pieces:
            self._catch_up()
        return self._by

    def _catch_up(self) -> None:
        by = self._by
        for piece, bucket in zip(self._pieces, self._buckets):
            o = self._last = piece_obj(piece, bucket)
            for k, v in o.fields.items():
                d = by.get(k)
                if d is None:
                    by[k] = {v: o}
                else:
                    d[v] = o
        self._pieces.clear()
        self._buckets.clear()

    def copy(self) -> Memory:
        m = Memory()
        m.p, m._last = self.p, self._last
        m._by = {k: dict(d) for k, d in self._by.items()}
        m._pieces, m._buckets = list(self._pieces), list(self._buckets)
        return m
