"""The Ray backend: each trial group of a run is a Ray task, on this machine or on a cluster.

No filesystem is shared with the workers. The driver (the process of ``zoo train``) sends a task the
run's spec and manifest and the group's folders as it holds them; the task trains in a scratch copy
(`zoo.trials.run_trials`, as the local backends do) and streams back, as a Ray generator, progress
and the changes of the group's folders (`zoo.mirror`), which the driver writes into the run folder.
The driver's copy so holds each checkpoint once it is complete; when a worker (or its node) dies,
the group is sent again, from that copy, to a new task, at most ``max_retries`` times.

Stopping (Ctrl-C or SIGTERM on the driver) is a flag held by a small actor, which the tasks read
between scans: they stop at their next checkpoint, as local workers do.
"""

from __future__ import annotations

import logging
import os
import queue
import socket
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from .console import StopFlag
from .errors import ZooError
from .mirror import Watcher, apply, snapshot, unpack
from .spec import RayBackend as RayParams
from .store import MANIFEST, RunFolder
from .trials import RESOLVED_SPEC, Interrupted, group_dir, run_trials
from .workers import Report, WorkerFailed

log = logging.getLogger("zoo")

#: seconds between a task's looks at its scratch folder (and at the stop flag)
SCAN_SECONDS = 0.5
#: seconds to wait for a cluster's address to answer
CONNECT_TIMEOUT = 5.0
INSTALL_HINT = "the ray backend needs Ray, which is not installed: pip install 'zoo-rl[ray]'"


def import_ray():
    """The ray module, or a ZooError naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ZooError(INSTALL_HINT) from None
    return ray


def connect(params: RayParams):
    """Start Ray on this machine (no address) or join the cluster at ``params.address``; returns the ray module.

    An address that does not answer within CONNECT_TIMEOUT seconds is a ZooError. A Ray that this
    process already runs (started by an earlier run, or by the caller) is used as it is.
    """
    ray = import_ray()
    if params.address is not None:
        _check_reachable(params.address)
    if ray.is_initialized():
        return ray
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if params.address is None:
        ray.init(num_cpus=params.workers * params.torch_threads, include_dashboard=False, **options)
        return ray
    try:
        ray.init(address=params.address, **options)
    except (ConnectionError, RuntimeError, ValueError) as exc:
        raise ZooError(f"backend.address '{params.address}': cannot join the Ray cluster ({_first_line(exc)}); "
                       "start one with 'ray start --head', or give no address to start Ray on this machine") from None
    return ray


def _check_reachable(address: str) -> None:
    """Refuse within seconds an address whose host and port do not accept a connection ('auto' is Ray's to find)."""
    if address == "auto":
        return
    parts = urlsplit(address if "://" in address else f"//{address}")
    try:
        with socket.create_connection((parts.hostname, parts.port), timeout=CONNECT_TIMEOUT):
            pass
    except OSError as exc:
        raise ZooError(f"backend.address '{address}': no Ray cluster answers there ({exc.strerror or exc}); "
                       "start one with 'ray start --head', or give no address to start Ray on this machine") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@dataclass
class _Attempt:
    group: list[int]
    tries: int = 0
    where: str = "a worker"


class RayTrials:
    """Trains a run's trial groups as Ray tasks (see the module's docstring)."""

    def __init__(self, params: RayParams, batched: bool):
        self.params, self.batched = params, batched

    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        ray = connect(self.params)
        folder = RunFolder(run_path)
        board, told = ray.remote(num_cpus=0)(_StopBoard).remote(), False
        task = ray.remote(_train_group).options(num_cpus=self.params.torch_threads, max_retries=0,
                                                num_returns="streaming")
        pending = [_Attempt(group) for group in groups]
        running: dict[Any, _Attempt] = {}
        failures, interrupted = [], False
        try:
            while pending or running:
                if stop.is_set() and not told:  # here, not in the signal handler, which may interrupt a Ray call
                    board.set.remote()
                    told = True
                while pending and len(running) < self.params.workers and not stop.is_set():
                    attempt = pending.pop(0)
                    folders = _folders(folder, attempt.group, self.batched)
                    parcel = self._parcel(folder, folders)
                    running[task.remote(parcel, attempt.group, folders, board, self.params.scratch)] = attempt
                if stop.is_set() and pending:
                    interrupted, pending = True, []
                if not running:
                    break
                ready, _ = ray.wait(list(running), num_returns=1, timeout=0.2)
                for stream in ready:
                    attempt, message = running[stream], _next_message(ray, stream, running[stream].group)
                    if message[0] == "lost":
                        del running[stream]
                        self._lost(attempt, message[1], pending, failures, stop)
                        continue
                    outcome = self._handle(folder, attempt, message, report)
                    if outcome is not None:
                        del running[stream]
                        if outcome == "interrupted":
                            interrupted = True
                        elif isinstance(outcome, WorkerFailed):
                            failures.append(outcome)
        finally:
            for stream in running:  # only when this process is itself aborting (a second Ctrl-C)
                ray.cancel(stream, force=True)
            ray.kill(board)
        if failures:
            details = "\n".join(f.details for f in failures if f.details)
            raise WorkerFailed("; ".join(map(str, failures)), details or None)
        if interrupted:
            raise Interrupted()

    @staticmethod
    def _parcel(folder: RunFolder, folders: list[str]) -> dict[str, bytes]:
        """What a task needs of the run: its spec and manifest, and the group's folders as the driver holds them."""
        files = {name: (folder.path / name).read_bytes() for name in (RESOLVED_SPEC, MANIFEST)}
        return files | snapshot(folder.path, folders)

    def _handle(self, folder: RunFolder, attempt: _Attempt, message: tuple, report: Report):
        """Act on one message of a task; returns "finished", "interrupted" or a WorkerFailed when it was the last."""
        kind = message[0]
        if kind == "started":
            attempt.where = f"process {message[2]} on {message[1]}"
        elif kind == "progress":
            report(message[1], message[2], message[3])
        elif kind == "files":
            apply(folder.path, message[1])
        elif kind == "finished":
            return "finished"
        elif kind == "interrupted":
            return "interrupted"
        elif kind == "error":
            return WorkerFailed(message[1], message[2])
        return None

    def _lost(self, attempt: _Attempt, exc: Exception, pending: list[_Attempt], failures: list[WorkerFailed],
              stop: StopFlag) -> None:
        """A task's worker died: send the group again from its last checkpoint, or give up after max_retries."""
        trials, reason = _names(attempt.group), f"{type(exc).__name__}: {_first_line(exc)}"
        if attempt.tries < self.params.max_retries and not stop.is_set():
            attempt.tries += 1
            log.warning(f"the worker of trial(s) {trials} ({attempt.where}) died ({reason}); "
                        f"restarting from its last checkpoint, retry {attempt.tries} of {self.params.max_retries}")
            pending.insert(0, attempt)
            return
        failures.append(WorkerFailed(
            f"the worker of trial(s) {trials} ({attempt.where}) died ({reason}) after {attempt.tries} retries; "
            "the trials' checkpoints are in the run folder, and 'zoo resume' continues from them", str(exc)))


def _next_message(ray, stream, group: list[int]) -> tuple:
    """A task's next message; an error of the task's own code is an "error" message, a lost worker ("lost", exc)."""
    try:
        return ray.get(next(stream))
    except StopIteration:
        return "error", f"the task of trial(s) {_names(group)} ended without a result", None
    except ray.exceptions.RayTaskError as exc:
        return "error", f"trial(s) {_names(group)}: {_first_line(exc)}", str(exc)
    except ray.exceptions.RayError as exc:  # the worker, its node or its objects are gone
        return "lost", exc


class _StopBoard:
    """The driver's stop flag, where tasks on any node can read it."""

    def __init__(self):
        self.stop = False

    def set(self) -> None:
        self.stop = True

    def is_set(self) -> bool:
        return self.stop


def _folders(folder: RunFolder, group: list[int], batched: bool) -> list[str]:
    """The group's folders, relative to the run folder: its trials' folders, and a batch's own folder."""
    paths = [folder.trial_dir(trial) for trial in group]
    if batched:
        paths.append(group_dir(folder, group, batched))
    return [path.relative_to(folder.path).as_posix() for path in paths]


def _names(group: list[int]) -> str:
    return ", ".join(map(str, group))


def _train_group(files: dict[str, bytes], group: list[int], folders: list[str], board, scratch: str | None):
    """The Ray task of one trial group: train in a scratch run folder, yielding what the driver needs.

    Yields ``("started", host, pid)``, then ``("progress", trial, done, running)`` and ``("files", Changes)``
    as training goes, and last ``("finished",)``, ``("interrupted",)`` or ``("error", text, traceback)``.
    """
    import ray

    from .registry import get_registry

    yield "started", socket.gethostname(), os.getpid()
    with tempfile.TemporaryDirectory(prefix="zoo-ray-", dir=scratch) as work:
        root = Path(work)
        unpack(root, files)
        registry = get_registry()
        watcher = Watcher(root, folders)
        progress: queue.Queue = queue.Queue()
        stop, outcome = threading.Event(), []
        trainer = threading.Thread(target=_train_in_thread, daemon=True,
                                   args=(root, group, registry, stop, progress, outcome))
        trainer.start()
        while trainer.is_alive():
            trainer.join(SCAN_SECONDS)
            yield from _progress(progress)
            changes = watcher.changes()
            if changes:
                yield "files", changes
            if not stop.is_set() and ray.get(board.is_set.remote()):
                stop.set()
        yield from _progress(progress)
        changes = watcher.changes()
        if changes:
            yield "files", changes
        yield outcome[0] if outcome else ("error", f"trial(s) {_names(group)}: the training thread ended without an outcome", None)


def _train_in_thread(root: Path, group: list[int], registry, stop: threading.Event, progress: queue.Queue,
                     outcome: list[tuple]) -> None:
    trials = _names(group)
    try:
        run_trials(root, group, registry=registry, should_stop=stop.is_set,
                   report=lambda trial, done, running: progress.put((trial, done, running)))
        outcome.append(("finished",))
    except Interrupted:
        outcome.append(("interrupted",))
    except ZooError as exc:
        outcome.append(("error", f"trial(s) {trials}: {exc}", None))
    except Exception as exc:
        outcome.append(("error", f"trial(s) {trials}: {type(exc).__name__}: {exc}", traceback.format_exc()))


def _progress(reports: queue.Queue):
    """The newest progress of each trial reported since the last call, as messages."""
    newest: dict[int, tuple] = {}
    while True:
        try:
            trial, done, running = reports.get_nowait()
        except queue.Empty:
            break
        newest[trial] = (done, running)
    for trial, (done, running) in newest.items():
        yield "progress", trial, done, running

