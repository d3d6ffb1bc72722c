"""Run folders, atomic writes and the index of runs (an embedded SQLite database)."""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
from contextlib import closing
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from .errors import ZooError

MANIFEST = "run.json"
INDEX = "index.sqlite"
STATUSES = ("created", "running", "interrupted", "finished", "failed")


def current_umask() -> int:
    """The process's umask (read without changing it where the kernel reports it)."""
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("Umask:"):
                return int(line.split()[1], 8)
    except OSError:
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def make_temp_dir(parent: Path, prefix: str) -> Path:
    """A new hidden folder in `parent` with the permissions the user's umask gives (mkdtemp's are 0700)."""
    path = Path(tempfile.mkdtemp(dir=parent, prefix=prefix, suffix=".tmp"))
    os.chmod(path, 0o777 & ~current_umask())
    return path


def atomic_write_text(path: Path, text: str) -> None:
    """Write `text` to `path` so that readers see the old file or the new one, never a part.

    The file gets the permissions the user's umask gives, as a plain open() would (not mkstemp's 0600).
    """
    path = Path(path)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def read_json(path: Path) -> Any:
    return json.loads(Path(path).read_text(encoding="utf-8"))


def now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def default_runs_dir() -> Path:
    return Path(os.environ.get("ZOO_RUNS_DIR", "runs"))


@dataclass
class RunFolder:
    """A run's directory: the manifest, the resolved spec and one sub-folder per trial."""

    path: Path

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def manifest(self) -> dict[str, Any]:
        try:
            return read_json(self.manifest_path)
        except FileNotFoundError:
            raise ZooError(f"{self.path}: not a zoo run folder (no {MANIFEST})") from None
        except json.JSONDecodeError as exc:
            raise ZooError(f"{self.manifest_path}: damaged manifest ({exc})") from None

    def update(self, **fields: Any) -> dict[str, Any]:
        manifest = self.manifest()
        manifest.update(fields, updated=now())
        atomic_write_json(self.manifest_path, manifest)
        RunIndex(self.path.parent).record(self.path, manifest)
        return manifest

    def trial_dir(self, trial: int) -> Path:
        return self.path / "trials" / f"{trial:03d}"


def create_run_folder(target: Path, files: dict[str, str], manifest: dict[str, Any]) -> RunFolder:
    """Create `target` with `files` and the manifest, all at once: built aside, then renamed.

    An existing `target` is an error and is left untouched.
    """
    target = Path(target)
    if target.exists():
        raise ZooError(f"{target}: run folder already exists; choose another --run-dir or resume it with 'zoo resume {target}'")
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = make_temp_dir(target.parent, prefix=f".{target.name}.")
    try:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        os.rename(staging, target)
    except FileExistsError:
        _remove_tree(staging)
        raise ZooError(f"{target}: run folder already exists") from None
    except BaseException:
        _remove_tree(staging)
        raise
    folder = RunFolder(target)
    RunIndex(target.parent).record(target, manifest)
    return folder


def _remove_tree(path: Path) -> None:
    import shutil

    shutil.rmtree(path, ignore_errors=True)


class RunIndex:
    """The SQLite index of the runs under one runs directory."""

    def __init__(self, runs_dir: Path):
        self.path = Path(runs_dir) / INDEX

    COLUMNS = ("path", "id", "name", "env", "agent", "status", "trials", "steps", "unit", "created", "updated")

    def _connect(self) -> sqlite3.Connection:
        """Open the index; an index written by another version of zoo is rebuilt from the run folders."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        connection = sqlite3.connect(self.path, timeout=30)
        columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(runs)"))
        if columns and columns != self.COLUMNS:
            with connection:
                connection.execute("DROP TABLE runs")
            self._create(connection)
            self._reindex(connection)
        self._create(connection)
        return connection

    @staticmethod
    def _create(connection: sqlite3.Connection) -> None:
        connection.execute(
            "CREATE TABLE IF NOT EXISTS runs (path TEXT PRIMARY KEY, id TEXT, name TEXT, env TEXT,"
            " agent TEXT, status TEXT, trials INTEGER, steps INTEGER, unit TEXT, created TEXT, updated TEXT)"
        )

    def record(self, run_path: Path, manifest: dict[str, Any]) -> None:
        with closing(self._connect()) as connection, connection:
            self._insert(connection, run_path, manifest)

    @staticmethod
    def _insert(connection: sqlite3.Connection, run_path: Path, manifest: dict[str, Any]) -> None:
        row = (
            str(Path(run_path).resolve()), manifest.get("id"), manifest.get("name"), manifest.get("env"),
            manifest.get("agent"), manifest.get("status"), manifest.get("trials"), manifest.get("steps"),
            manifest.get("unit", "steps"), manifest.get("created"), manifest.get("updated", manifest.get("created")),
        )
        connection.execute(f"INSERT OR REPLACE INTO runs VALUES ({','.join('?' * len(row))})", row)

    def query(self, env: str | None = None, agent: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        clauses, values = [], []
        for column, value in (("env", env), ("agent", agent), ("status", status)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        if not self.path.exists():
            return []
        with closing(self._connect()) as connection:
            connection.row_factory = sqlite3.Row
            rows = connection.execute(f"SELECT * FROM runs{where} ORDER BY created, path", values).fetchall()
        return [dict(row) for row in rows]

    def rebuild(self) -> int:
        """Re-index every run folder below the runs directory; returns how many were found."""
        with closing(self._connect()) as connection, connection:
            connection.execute("DELETE FROM runs")
            return self._reindex(connection)

    def _reindex(self, connection: sqlite3.Connection) -> int:
        found = 0
        for manifest_path in sorted(self.path.parent.glob(f"*/{MANIFEST}")):
            try:
                self._insert(connection, manifest_path.parent, read_json(manifest_path))
                found += 1
            except (OSError, json.JSONDecodeError):
                continue
        connection.commit()
        return found


def iter_checkpoints(checkpoint_root: Path) -> Iterator[tuple[int, Path]]:
    """Complete checkpoints of a trial, oldest first, as (step, folder)."""
    if not checkpoint_root.exists():
        return iter(())
    found = []
    for child in checkpoint_root.iterdir():
        unit, _, number = child.name.partition("-")
        if unit in ("step", "episode") and number.isdigit() and (child / "COMPLETE").exists():
            found.append((int(number), child))
    return iter(sorted(found))
