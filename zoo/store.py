"""Run folders and atomic writes."""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import socket
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from .errors import ZooError, failure_at

MANIFEST = "run.json"
CLAIM = "claim.lock"

RUN_STATUSES = ("created", "running", "interrupted", "finished", "failed")


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
    try:
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as exc:
        raise failure_at(path, exc, "write") from exc
    try:
        os.fchmod(fd, 0o666 & ~current_umask())
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise failure_at(path, exc, "write") from exc
        raise
    fsync_path(path.parent)


def fsync_path(path: Path) -> None:
    """Flush a file's or a folder's entries to disk (a folder's fsync makes the names inside it durable)."""
    fd = os.open(path, os.O_RDONLY | (os.O_DIRECTORY if Path(path).is_dir() else 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_text(path, json.dumps(data, indent=2, sort_keys=True) + "\n")


def read_json(path: Path, expect: type | None = None) -> Any:
    """The JSON document in a file; one that is not JSON (damaged, truncated, binary), or not of the
    `expect`ed type, is a ZooError naming it."""
    try:
        document = json.loads(Path(path).read_text(encoding="utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ZooError(f"{path}: damaged, not JSON ({exc})") from None
    if expect is not None and not isinstance(document, expect):
        raise ZooError(f"{path}: damaged, {type(document).__name__} where {expect.__name__} was expected")
    return document


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def default_runs_dir() -> Path:
    return Path(os.environ.get("ZOO_RUNS_DIR", "runs"))


@dataclass
class RunFolder:
    """A run's directory: the manifest, the resolved spec and one sub-folder per trial."""

    path: Path

    @property
    def manifest_path(self) -> Path:
        return self.path / MANIFEST

    def manifest(self, require: tuple[str, ...] = ()) -> dict[str, Any]:
        """The run's manifest; a missing, unreadable or damaged one (or one without `require`) is a ZooError."""
        try:
            manifest = read_json(self.manifest_path)
        except (FileNotFoundError, NotADirectoryError):
            raise ZooError(f"{self.path}: not a zoo run folder (no {MANIFEST})") from None
        except OSError as exc:
            raise ZooError(f"{self.manifest_path}: cannot read the manifest: {exc.strerror}") from None
        problem = manifest_problem(manifest, require)
        if problem:
            raise ZooError(f"{self.manifest_path}: damaged manifest: {problem}")
        return manifest

    def update(self, **fields: Any) -> dict[str, Any]:
        manifest = self.manifest()
        manifest.update(fields, updated=now())
        atomic_write_json(self.manifest_path, manifest)
        return manifest

    @contextmanager
    def claim(self, *, force: bool = False) -> Iterator[None]:
        """Hold the exclusive right to train this run (an flock on ``claim.lock``, released when the process ends).

        A run marked running by a process on another host (a shared file system, where locks may not
        reach) is refused too, unless `force`: for a claim left behind by a machine that went away.
        """
        manifest = self.manifest()
        host = socket.gethostname()
        if not force and manifest.get("status") == "running" and manifest.get("host") not in (None, host):
            raise ZooError(f"{self.path}: run is marked running by process {manifest.get('pid')} on host "
                           f"{manifest.get('host')}; if that process is gone, continue with 'zoo resume --force'")
        fd = os.open(self.path / CLAIM, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.pread(fd, 200, 0).decode("utf-8", "replace").strip() or "another process"
                raise ZooError(f"{self.path}: run is being trained by {holder}; wait for it or stop it first") from None
            os.ftruncate(fd, 0)
            os.pwrite(fd, f"process {os.getpid()} on {host} since {now()}\n".encode(), 0)
            yield
        finally:
            os.close(fd)  # releases the lock

    def trial_dir(self, trial: int) -> Path:
        return self.path / "trials" / f"{trial:03d}"


#: manifest keys every reader relies on, and the types of those that some readers use
MANIFEST_REQUIRED = ("id", "env", "agent", "status")
MANIFEST_TYPES: dict[str, type] = {
    "id": str, "env": str, "agent": str, "status": str, "name": str, "trials": int, "seeds": list,
}


def manifest_problem(manifest: Any, require: tuple[str, ...] = ()) -> str | None:
    """What is wrong with a manifest's shape (None if nothing): not an object, a key missing or of the wrong type."""
    if not isinstance(manifest, dict):
        return f"expected a JSON object, found {type(manifest).__name__ if manifest is not None else 'null'}"
    for key in (*MANIFEST_REQUIRED, *require):
        if key not in manifest:
            return f"no '{key}'"
    for key, kind in MANIFEST_TYPES.items():
        value = manifest.get(key)
        if value is not None and (not isinstance(value, kind) or isinstance(value, bool)):
            return f"'{key}' is {type(value).__name__}, not {kind.__name__}"
    seeds = manifest.get("seeds")
    if seeds is not None and not all(isinstance(seed, int) and not isinstance(seed, bool) for seed in seeds):
        return "'seeds' holds something other than whole numbers"
    if seeds is not None and isinstance(manifest.get("trials"), int) and len(seeds) != manifest["trials"]:
        return f"{len(seeds)} seeds for {manifest['trials']} trials"
    return None


def create_run_folder(target: Path, files: dict[str, str], manifest: dict[str, Any], *, unique: bool = False) -> RunFolder:
    """Create `target` with `files` and the manifest, all at once: built aside, then renamed onto a reserved name.

    With `unique`, a taken name gets the first free suffix ``-2``, ``-3``, ... (concurrent launches
    each reserve their own); without, an existing `target` is an error and is left untouched. The
    manifest's ``id`` is the folder's final name.
    """
    target = Path(target)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        final = _reserve(target, unique)
    except OSError as exc:
        raise failure_at(target, exc, "create the run folder") from exc
    manifest = {**manifest, "id": final.name}
    try:
        staging = make_temp_dir(target.parent, prefix=f".{final.name}.")
    except OSError as exc:
        final.rmdir()  # the reserved name goes with the failure: nothing half-written stays
        raise failure_at(final, exc, "create the run folder") from exc
    try:
        for name, text in files.items():
            (staging / name).write_text(text, encoding="utf-8")
        (staging / MANIFEST).write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        for path in staging.iterdir():
            fsync_path(path)
        os.rename(staging, final)  # onto the empty folder reserved for it
        fsync_path(final.parent)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        if final.is_dir() and not any(final.iterdir()):
            final.rmdir()
        raise
    return RunFolder(final)


def _reserve(target: Path, unique: bool) -> Path:
    """Create an empty folder at `target` (or, with `unique`, at the first free ``target-N``) and return it."""
    candidate, number = target, 1
    while True:
        try:
            candidate.mkdir()
            return candidate
        except FileExistsError:
            if not unique:
                raise ZooError(f"{target}: run folder already exists; choose another --run-dir "
                               f"or resume it with 'zoo resume {target}'") from None
            number += 1
            candidate = target.with_name(f"{target.name}-{number}")


def find_run(reference: str, runs_dir: Path) -> Path:
    """The run folder that `reference` names: a folder, or the id of a run directly inside `runs_dir`.

    An id that several folders carry (a copied run folder keeps its manifest) is an error naming each.
    """
    path = Path(reference)
    if path.is_dir():
        return path
    runs_dir = Path(runs_dir)
    matches: set[Path] = set()
    for manifest_path in runs_dir.glob(f"*/{MANIFEST}"):
        if manifest_path.parent.name.startswith("."):
            continue  # a run folder still being built aside
        if manifest_path.parent.name == reference:
            matches.add(manifest_path.parent.resolve())
            continue
        try:
            if read_json(manifest_path).get("id") == reference:
                matches.add(manifest_path.parent.resolve())
        except (OSError, ValueError, AttributeError, ZooError):
            continue
    if not matches:
        raise ZooError(f"{reference}: no such run folder, and no run with that id in {runs_dir}")
    if len(matches) > 1:
        listed = "\n".join(f"  {match}" for match in sorted(matches))
        raise ZooError(f"{reference}: {len(matches)} run folders have this id; name one of them:\n{listed}")
    return matches.pop()


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
