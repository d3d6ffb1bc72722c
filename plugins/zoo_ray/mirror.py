"""Copying a trial group's folders between machines that share no filesystem.

A cluster worker trains in a scratch copy of the run folder. `Watcher` reads what changed in the
group's folders since it last looked, as one `Changes` message: bytes appended to files that only
grew (metrics), whole files that are new or rewritten (checkpoints, results), and files that were
removed (pruned checkpoints). The driver applies each message to the run folder with `apply`, so
its copy is always one that the worker had at some moment: a checkpoint reaches it whole or not at all.
Hidden entries (names starting with "."), where checkpoints and atomic writes are staged, are not copied.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from zoo import COMPLETE


@dataclass
class Changes:
    """What changed below a root since the last look; paths are relative, with "/" separators."""

    written: dict[str, bytes] = field(default_factory=dict)
    appended: dict[str, tuple[int, bytes]] = field(default_factory=dict)  # path -> (offset, bytes)
    removed: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.written or self.appended or self.removed)


def snapshot(root: Path, folders: list[str]) -> dict[str, bytes]:
    """Every visible file below `folders` (relative to `root`) by relative path."""
    return {name: path.read_bytes() for name, path in _files(root, folders).items()}


def unpack(root: Path, files: dict[str, bytes]) -> None:
    """Write `files` (from `snapshot`) below `root`."""
    apply(root, Changes(written=files))


def apply(root: Path, changes: Changes) -> None:
    """Apply a worker's changes to the copy below `root`; checkpoint markers (COMPLETE) are written after the files they vouch for."""
    root = Path(root).resolve()
    for name in sorted(changes.written, key=lambda name: Path(name).name == COMPLETE):
        target = _inside(root, name)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(changes.written[name])
    for name, (offset, data) in changes.appended.items():
        target = _inside(root, name)
        with target.open("r+b") as handle:
            handle.truncate(offset)
            handle.seek(offset)
            handle.write(data)
    for name in changes.removed:
        target = _inside(root, name)
        target.unlink(missing_ok=True)
        for parent in target.parents:
            if parent == root or not parent.is_relative_to(root) or any(parent.iterdir()):
                break
            parent.rmdir()


@dataclass(frozen=True)
class _Sent:
    size: int  # of the file when it was read
    mtime_ns: int
    length: int  # bytes sent: the whole file, or of a JSON-lines file its whole lines
    digest: str  # sha256 of the bytes sent


class Watcher:
    """The changes below `folders` of `root` since the last call of `changes` (or since it was made).

    Of a JSON-lines file (``*.jsonl``, the metrics) only whole lines are sent, so that the driver's
    copy never ends in half a row, whenever the worker stops.
    """

    def __init__(self, root: Path, folders: list[str]):
        self.root, self.folders = Path(root), folders
        self._sent: dict[str, _Sent] = {}
        self.changes()

    def changes(self) -> Changes:
        out = Changes()
        present = _files(self.root, self.folders)
        for name, path in present.items():
            try:
                stat = path.stat()
                sent = self._sent.get(name)
                if sent is not None and (sent.size, sent.mtime_ns) == (stat.st_size, stat.st_mtime_ns):
                    continue
                data = path.read_bytes()
            except FileNotFoundError:  # removed while we looked: reported as removed next time
                continue
            if name.endswith(".jsonl"):
                data = data[:data.rfind(b"\n") + 1]
            if sent is not None and len(data) >= sent.length and _digest(data[:sent.length]) == sent.digest:
                if len(data) > sent.length:
                    out.appended[name] = (sent.length, data[sent.length:])
            else:
                out.written[name] = data
            self._sent[name] = _Sent(stat.st_size, stat.st_mtime_ns, len(data), _digest(data))
        for name in sorted(set(self._sent) - set(present)):
            del self._sent[name]
            out.removed.append(name)
        return out


def _files(root: Path, folders: list[str]) -> dict[str, Path]:
    found = {}
    for folder in folders:
        base = root / folder
        for directory, subdirs, names in os.walk(base):
            subdirs[:] = sorted(d for d in subdirs if not d.startswith("."))
            for name in sorted(n for n in names if not n.startswith(".")):
                path = Path(directory) / name
                found[path.relative_to(root).as_posix()] = path
    return found


def _inside(root: Path, name: str) -> Path:
    target = (root / name).resolve()
    if not target.is_relative_to(root):
        raise ValueError(f"{name}: outside the run folder")
    return target


def _digest(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()
