"""The index of a runs folder (``index.sqlite``): what ``zoo runs`` lists and filters.

The run folders are the record; the index is a cache of their manifests that only its readers keep.
Each read first refreshes it from the folders: a manifest whose file changed since it was read (its
modification time or size differs) is read again, a new folder is added and a folder that is gone (or
whose manifest became unreadable) is dropped. Training therefore never waits on the index or fails on
it, and runs made by any process, host or tool appear at the next read. A missing, damaged or older
index is rebuilt; a locked one or a full disk is said as such and left as it is; where none can be
written (a read-only runs folder), the listing goes through one in memory.
"""

from __future__ import annotations

import fcntl
import logging
import os
import sqlite3
import time
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path
from typing import Any

from zoo import MANIFEST, ZooError, read_json

INDEX_FILE = "index.sqlite"
BUSY_SECONDS = 15

log = logging.getLogger("zoo")


class RunIndex:
    """The index of the runs directly inside one runs folder."""

    #: what a listing shows of each run; the table also keeps the stat of the manifest each row was read from
    SHOWN = ("path", "id", "name", "env", "agent", "status", "trials", "steps", "unit", "created", "updated")
    COLUMNS = (*SHOWN, "manifest_mtime", "manifest_size")

    def __init__(self, runs_dir: Path):
        self.runs_dir = Path(runs_dir)
        self.path = self.runs_dir / INDEX_FILE

    def query(self, env: str | None = None, agent: str | None = None, status: str | None = None) -> list[dict[str, Any]]:
        """The runs, oldest first, after a refresh from the run folders; each filter keeps rows with that value."""
        if not self.runs_dir.is_dir():
            return []
        clauses, values = [], []
        for column, value in (("env", env), ("agent", agent), ("status", status)):
            if value is not None:
                clauses.append(f"{column} = ?")
                values.append(value)
        where = f" WHERE {' AND '.join(clauses)}" if clauses else ""
        with self._refused():
            connection, _ = self._refreshed(rebuild=False)
            with closing(connection):
                connection.row_factory = sqlite3.Row
                rows = connection.execute(f"SELECT * FROM runs{where} ORDER BY created, path", values).fetchall()
        return [{key: row[key] for key in self.SHOWN} for row in rows]

    def rebuild(self) -> int:
        """Read every run folder's manifest again; returns how many runs the index then holds."""
        if not self.runs_dir.is_dir():
            return 0
        with self._refused():
            connection, count = self._refreshed(rebuild=True)
            connection.close()
        return count

    def _refreshed(self, rebuild: bool) -> tuple[sqlite3.Connection, int]:
        """A connection to the index, refreshed (read again whole with `rebuild`), and how many runs it holds.

        Where the index cannot be written (a read-only runs folder, shared for reading), the runs are listed
        through an index in memory, with a warning: the run folders are the record, the file only saves time.
        """
        try:
            connection = self._connect()
            try:
                return connection, self._fill(connection, rebuild)
            except BaseException:
                connection.close()
                raise
        except sqlite3.OperationalError as exc:
            if not _unwritable(exc):
                raise
            log.warning("%s cannot be written (%s); the runs are listed from their folders without it", self.path, exc)
            connection = sqlite3.connect(":memory:")
            _create_table(connection)
            return connection, self._fill(connection, rebuild)

    def _fill(self, connection: sqlite3.Connection, rebuild: bool) -> int:
        if rebuild:
            with connection:
                connection.execute("DELETE FROM runs")
        return self._refresh(connection)

    def _refresh(self, connection: sqlite3.Connection) -> int:
        # A manifest is re-read when its file's (mtime, size) differs from the one recorded with its row.
        # Run folders replace run.json by rename, so every write gives a new file and a new stat. The
        # stat is taken before the read: a write between the two leaves a stale stat behind, which makes
        # the next refresh read the file again rather than miss the write.
        recorded = {row[0]: (row[1], row[2]) for row in
                    connection.execute("SELECT path, manifest_mtime, manifest_size FROM runs")}
        present = set()
        with connection:
            for manifest_path in sorted(self.runs_dir.glob(f"*/{MANIFEST}")):
                if manifest_path.parent.name.startswith("."):
                    continue  # a run folder still being built aside (it is listed once renamed into place)
                try:
                    stat = manifest_path.stat()
                    key = str(manifest_path.parent.resolve())
                    if recorded.get(key) != (stat.st_mtime_ns, stat.st_size):
                        self._insert(connection, key, read_json(manifest_path), stat)
                except (OSError, ValueError, AttributeError, ZooError):
                    continue  # unreadable now: dropped below, listed again once readable
                present.add(key)
            gone = [(path,) for path in recorded if path not in present]
            connection.executemany("DELETE FROM runs WHERE path = ?", gone)
        return len(present)

    @staticmethod
    def _insert(connection: sqlite3.Connection, path: str, manifest: dict[str, Any], stat: os.stat_result) -> None:
        row = (
            path, manifest.get("id"), manifest.get("name"), manifest.get("env"), manifest.get("agent"),
            manifest.get("status"), manifest.get("trials"), manifest.get("steps"), manifest.get("unit", "steps"),
            manifest.get("created"), manifest.get("updated", manifest.get("created")), stat.st_mtime_ns, stat.st_size,
        )
        connection.execute(f"INSERT OR REPLACE INTO runs VALUES ({','.join('?' * len(row))})", row)

    def _connect(self) -> sqlite3.Connection:
        """Open the index; a damaged one is moved aside (one process at a time) and a new one made."""
        try:
            return self._open()
        except sqlite3.DatabaseError as exc:
            if _busy(exc) or _full(exc) or _unwritable(exc):
                raise  # no damage: `_refused` or `_refreshed` deal with it
            damage = exc
        with self._healing():
            try:  # another process may have healed it meanwhile
                return self._open()
            except sqlite3.DatabaseError as exc:
                if _full(exc):
                    raise
                aside = self.path.with_name(f"{INDEX_FILE}.damaged-{int(time.time())}-{os.getpid()}")
                os.replace(self.path, aside)
                log.warning("%s was damaged (%s); moved it to %s and rebuilt the index from the run folders",
                            self.path, damage, aside.name)
                return self._open()

    def _open(self) -> sqlite3.Connection:
        """A connection to the index, its table made (or remade, when an older zoo wrote other columns)."""
        connection = sqlite3.connect(self.path, timeout=BUSY_SECONDS)
        try:
            columns = tuple(row[1] for row in connection.execute("PRAGMA table_info(runs)"))
            with connection:
                if columns and columns != RunIndex.COLUMNS:
                    connection.execute("DROP TABLE runs")
                _create_table(connection)
            return connection
        except BaseException:
            connection.close()
            raise

    @contextmanager
    def _healing(self) -> Iterator[None]:
        """One process at a time moves a damaged index aside and makes a new one."""
        fd = os.open(self.path.with_name(f"{INDEX_FILE}.heal.lock"), os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    @contextmanager
    def _refused(self) -> Iterator[None]:
        """A locked index or a full disk as a ZooError that says what to do; other errors as they are."""
        try:
            yield
        except sqlite3.DatabaseError as exc:
            if _busy(exc):
                raise ZooError(f"{self.path}: the run index stayed locked by another process for {BUSY_SECONDS} s; "
                               "try again when it is done") from None
            if _full(exc):
                raise ZooError(f"{self.path}: the disk is full ({exc}); the index was left as it is: free some space "
                               "and try again") from None
            raise


def _create_table(connection: sqlite3.Connection) -> None:
    connection.execute(
        "CREATE TABLE IF NOT EXISTS runs (path TEXT PRIMARY KEY, id TEXT, name TEXT, env TEXT, agent TEXT, status TEXT,"
        " trials INTEGER, steps INTEGER, unit TEXT, created TEXT, updated TEXT, manifest_mtime INTEGER, manifest_size INTEGER)"
    )


def _unwritable(exc: sqlite3.Error) -> bool:
    """Whether SQLite could not create or write the index file (no permission, a read-only file system)."""
    return "readonly" in str(exc) or "unable to open" in str(exc)


def _busy(exc: sqlite3.Error) -> bool:
    return "locked" in str(exc) or "busy" in str(exc)


def _full(exc: sqlite3.Error) -> bool:
    """Whether SQLite failed because the disk (or the user's quota) is full: no damage, nothing to heal."""
    return getattr(exc, "sqlite_errorcode", None) == sqlite3.SQLITE_FULL or "disk is full" in str(exc)
