"""The Ray backend: each trial group of a run is a Ray task, on a private Ray of this machine or on a cluster.

No filesystem is shared with the workers. The driver (the process of ``zoo train``) sends a task the
run's spec and manifest and the group's folders as it holds them; the task trains in a scratch copy
(`zoo.run_trials`, as the local backend does) and posts progress and the changes of the group's
folders (`zoo_ray.mirror`) to a mailbox actor on the driver's node, which the driver empties into the run
folder. The driver's copy so holds each checkpoint once it is complete; when a worker (or its node)
dies, the group is sent again, from that copy, to a new task, at most ``max_retries`` times.

A mailbox rather than Ray's streaming generators, because the Ray Client (``ray://`` addresses) does
not carry those. It also holds the driver's stop flag (Ctrl-C or SIGTERM), which the tasks read with
each post: they stop at their next checkpoint, as local workers do.

Without an address the driver starts a Ray of its own (``ray.init(address="local")`` in a temp folder of
its own), which never joins another Ray running on the machine, and stops it when the run ends; a
cluster is joined only when the spec or ``--address`` names one.
"""

from __future__ import annotations

import logging
import os
import queue
import shutil
import socket
import tempfile
import threading
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from zoo import (
    MANIFEST,
    RESOLVED_SPEC,
    Interrupted,
    Report,
    RunFolder,
    StopFlag,
    WorkerFailed,
    ZooError,
    group_dir,
    run_trials,
)

from .mirror import Watcher, apply, snapshot, unpack
from .params import RayParams

log = logging.getLogger("zoo")

#: seconds between a task's looks at its scratch folder (and at the stop flag)
SCAN_SECONDS = 0.5
#: seconds to wait for a cluster's address to answer
CONNECT_TIMEOUT = 5.0
#: connections tried through the Ray Client: its server on the head starts a process for each client, and
#: that process sometimes dies as it starts (https://github.com/ray-project/ray/issues/63202)
CLIENT_TRIES = 3
INSTALL_HINT = "the ray backend needs Ray, which is not installed: pip install 'zoo-rl[ray]'"


def import_ray():
    """The ray module, or a ZooError naming the extra that installs it."""
    try:
        import ray
    except ImportError:
        raise ZooError(INSTALL_HINT) from None
    return ray


def check(params: RayParams) -> None:
    """Refuse, before a run folder exists, a machine without Ray and a cluster address that cannot be joined
    (a private Ray is started when the run starts)."""
    import_ray()
    if params.address is not None:
        connect(params)


def connect(params: RayParams):
    """Start a private Ray on this machine (no address) or join the cluster at ``params.address``; returns the ray module.

    An address that does not answer within CONNECT_TIMEOUT seconds is a ZooError, as is a cluster
    where no node has a resource of ``params.resources``. A Ray that this process already runs
    (started by an earlier call, or by the caller) is used as it is; `release` ends what this module began.
    """
    ray = import_ray()
    if params.address is not None:
        _check_reachable(params.address)
    if not ray.is_initialized():
        _start_or_join(ray, params)
    missing = sorted(set(params.resources) - set(ray.cluster_resources()))
    if missing:
        raise ZooError(f"backend.resources: no node of the Ray cluster has {', '.join(map(repr, missing))}; "
                       "give a node it with ray start --resources, or leave it out")
    return ray


class _Session:
    """Whether this module started or joined the Ray of this process (not: no Ray, or the caller's), and the
    temp folder of a private one."""

    began = False
    temp_dir: str | None = None


def release() -> None:
    """Stop the private Ray `connect` started (and remove its temp folder), or leave the cluster it joined."""
    if not _Session.began:
        return
    import ray

    ray.shutdown()
    if _Session.temp_dir is not None:
        shutil.rmtree(_Session.temp_dir, ignore_errors=True)
    _Session.began, _Session.temp_dir = False, None


def _start_or_join(ray, params: RayParams) -> None:
    options: dict[str, Any] = {"logging_level": logging.WARNING, "log_to_driver": False}
    if params.address is None:
        _start_private(ray, params, options)
        return
    tries = CLIENT_TRIES if params.address.startswith("ray://") else 1
    for attempt in range(1, tries + 1):
        try:
            ray.init(address=params.address, **options)
            _Session.began = True
            return
        except ConnectionAbortedError as exc:  # the Ray Client's server failed to start this client's own
            failure = exc
            ray.shutdown()  # whatever the failed connection left
            if attempt < tries:
                log.info(f"backend.address '{params.address}': the Ray Client's server failed to start "
                         f"({_first_line(exc)}); connecting again, try {attempt + 1} of {tries}")
        except (ConnectionError, RuntimeError, ValueError) as exc:
            raise _cannot_join(params.address, exc) from None
    raise _cannot_join(params.address, failure)


def _start_private(ray, params: RayParams, options: dict[str, Any]) -> None:
    """A new Ray on this machine with what the run's trial groups at once ask for, in a temp folder of its own.

    ``address="local"`` starts a new instance even when another runs here (RAY_ADDRESS and the machine's
    latest cluster are ignored), and its own temp folder keeps its sockets and logs apart from the other's.
    """
    temp_dir = tempfile.mkdtemp(prefix="zoo-ray-")
    try:
        ray.init(address="local", _temp_dir=temp_dir, num_cpus=params.workers * params.torch_threads,
                 include_dashboard=False, resources={name: amount * params.workers for name, amount in params.resources.items()},
                 **options)
    except Exception as exc:  # Ray raises many kinds here (a full disk, too little shared memory, a port in use)
        ray.shutdown()
        shutil.rmtree(temp_dir, ignore_errors=True)
        raise ZooError(f"cannot start a private Ray on this machine ({type(exc).__name__}: {_first_line(exc)}); "
                       f"check the free space of {tempfile.gettempdir()} and of /dev/shm, or join a running cluster "
                       "with --address") from None
    _Session.began, _Session.temp_dir = True, temp_dir


def _cannot_join(address: str, exc: Exception) -> ZooError:
    token = "" if os.environ.get("RAY_AUTH_MODE") else " (a cluster with token authentication also needs RAY_AUTH_MODE=token here)"
    return ZooError(f"backend.address '{address}': cannot join the Ray cluster ({_first_line(exc)}){token}; "
                    "start one with 'ray start --head', or give no address to start a private Ray on this machine")


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
                       "start one with 'ray start --head', or give no address to start a private Ray on this machine") from None


def _first_line(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


@dataclass
class _Attempt:
    group: list[int]
    tries: int = 0
    where: str = "a worker"
    outcome: tuple | None = None  # the task's last message: ("finished",), ("interrupted",) or ("error", text, traceback)


class RayTrials:
    """Trains a run's trial groups as Ray tasks (see the module's docstring)."""

    def __init__(self, params: RayParams, batched: bool):
        self.params, self.batched = params, batched

    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        ray = connect(self.params)
        try:
            self._train(ray, run_path, groups, stop, report)
        finally:
            release()

    def _train(self, ray, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        folder = RunFolder(run_path)
        here = NodeAffinitySchedulingStrategy(ray.get_runtime_context().get_node_id(), soft=False)
        mailbox, told = ray.remote(num_cpus=0)(_Mailbox).options(scheduling_strategy=here).remote(), False
        task = ray.remote(_train_group).options(num_cpus=self.params.torch_threads, resources=self.params.resources,
                                                max_retries=0)
        pending = [_Attempt(group) for group in groups]
        running: dict[int, tuple[Any, _Attempt]] = {}  # by the task's serial number, which its messages carry
        failures, interrupted, sent = [], False, 0
        try:
            while pending or running:
                if stop.is_set() and not told:  # here, not in the signal handler, which may interrupt a Ray call
                    mailbox.stop.remote()
                    told = True
                while pending and len(running) < self.params.workers and not stop.is_set():
                    attempt, sent = pending.pop(0), sent + 1
                    folders = _folders(folder, attempt.group, self.batched)
                    parcel = self._parcel(folder, folders)
                    running[sent] = task.remote(parcel, attempt.group, folders, mailbox, sent, self.params.scratch), attempt
                if stop.is_set() and pending:
                    interrupted, pending = True, []
                if not running:
                    break
                refs = {ref: key for key, (ref, _) in running.items()}
                ready, _ = ray.wait(list(refs), num_returns=len(refs), timeout=0.2)
                # after the wait: a task that has ended had its posts taken in before it returned
                for key, message in ray.get(mailbox.take.remote()):
                    if key in running:  # not a late post of a try already given up as lost
                        self._handle(folder, running[key][1], message, report)
                for ref in ready:
                    attempt = running.pop(refs[ref])[1]
                    outcome = _outcome(ray, ref, attempt)
                    if outcome[0] == "lost":
                        self._lost(attempt, outcome[1], pending, failures, stop)
                    elif outcome[0] == "interrupted":
                        interrupted = True
                    elif outcome[0] == "error":
                        failures.append(WorkerFailed(outcome[1], outcome[2]))
        finally:
            for ref, _ in running.values():  # only when this process is itself aborting (a second Ctrl-C)
                ray.cancel(ref, force=True)
            ray.kill(mailbox)
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

    @staticmethod
    def _handle(folder: RunFolder, attempt: _Attempt, message: tuple, report: Report) -> None:
        """Act on one message of a task."""
        kind = message[0]
        if kind == "started":
            attempt.where = f"process {message[2]} on {message[1]}, node {message[3]}"
        elif kind == "progress":
            report(message[1], message[2], message[3])
        elif kind == "files":
            apply(folder.path, message[1])
        else:
            attempt.outcome = message

    def _lost(self, attempt: _Attempt, exc: Exception, pending: list[_Attempt], failures: list[WorkerFailed],
              stop: StopFlag) -> None:
        """A task's worker died: send the group again from its last checkpoint, or give up after max_retries."""
        trials, reason = _names(attempt.group), f"{type(exc).__name__}: {_first_line(exc)}"
        if attempt.tries < self.params.max_retries and not stop.is_set():
            attempt.tries += 1
            log.warning(f"the worker of trial(s) {trials} ({attempt.where}) died ({reason}); "
                        f"restarting from its last checkpoint, retry {attempt.tries} of {self.params.max_retries}")
            attempt.outcome = None
            pending.insert(0, attempt)
            return
        failures.append(WorkerFailed(
            f"the worker of trial(s) {trials} ({attempt.where}) died ({reason}) after {attempt.tries} retries; "
            "the trials' checkpoints are in the run folder, and 'zoo resume' continues from them", str(exc)))


def _outcome(ray, ref, attempt: _Attempt) -> tuple:
    """How an ended task ended: its last message, an "error" of the task's own code, or ("lost", exc) for a lost worker."""
    group = _names(attempt.group)
    try:
        ray.get(ref)
    except ray.exceptions.RayTaskError as exc:
        return "error", f"trial(s) {group}: {_first_line(exc)}", str(exc)
    except ray.exceptions.RayError as exc:  # the worker, its node or its objects are gone
        return "lost", exc
    return attempt.outcome or ("error", f"the task of trial(s) {group} ended without a result", None)


class _Mailbox:
    """Where tasks on any node post their messages for the driver, and read whether it asks them to stop."""

    def __init__(self):
        self.messages: list[tuple[int, tuple]] = []
        self.stopping = False

    def post(self, key: int, messages: list[tuple]) -> bool:
        """Keep a task's messages; returns whether the tasks are to stop."""
        self.messages.extend((key, message) for message in messages)
        return self.stopping

    def take(self) -> list[tuple[int, tuple]]:
        taken, self.messages = self.messages, []
        return taken

    def stop(self) -> None:
        self.stopping = True


def _folders(folder: RunFolder, group: list[int], batched: bool) -> list[str]:
    """The group's folders, relative to the run folder: its trials' folders, and a batch's own folder."""
    paths = [folder.trial_dir(trial) for trial in group]
    if batched:
        paths.append(group_dir(folder, group, batched))
    return [path.relative_to(folder.path).as_posix() for path in paths]


def _names(group: list[int]) -> str:
    return ", ".join(map(str, group))


def _train_group(files: dict[str, bytes], group: list[int], folders: list[str], mailbox, key: int,
                 scratch: str | None) -> None:
    """The Ray task of one trial group: train in a scratch run folder, posting what the driver needs to `mailbox`.

    Posts ``("started", host, pid, node)``, then ``("progress", trial, done, running)`` and ``("files", Changes)``
    as training goes, and last ``("finished",)``, ``("interrupted",)`` or ``("error", text, traceback)``;
    each post waits for the mailbox, so all are in when the task returns.
    """
    import ray

    from zoo import get_registry

    def post(messages: list[tuple]) -> bool:
        return ray.get(mailbox.post.remote(key, messages))

    post([("started", socket.gethostname(), os.getpid(), ray.get_runtime_context().get_node_id())])
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
            if post(_news(progress, watcher)) and not stop.is_set():
                stop.set()
        last = outcome[0] if outcome else ("error", f"trial(s) {_names(group)}: the training thread ended without an outcome", None)
        post([*_news(progress, watcher), last])


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


def _news(reports: queue.Queue, watcher: Watcher) -> list[tuple]:
    """The newest progress of each trial reported since the last call, and what changed in the folders, as messages."""
    newest: dict[int, tuple] = {}
    while True:
        try:
            trial, done, running = reports.get_nowait()
        except queue.Empty:
            break
        newest[trial] = (done, running)
    news = [("progress", trial, done, running) for trial, (done, running) in newest.items()]
    changes = watcher.changes()
    return [*news, ("files", changes)] if changes else news
