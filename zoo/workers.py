"""The local workers of the kernel's backend (`zoo.core_plugin`): trial groups in this process, or in a pool of
local worker processes.

A backend is anything with ``train(run_path, groups, stop, report)``; plugins register others
(`zoo.hookspecs.register_backends`). Each group is trained by `zoo.trials.run_trials`, which resumes from
the group's checkpoints, so a backend only has to place the work and say how it ended.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path
from queue import Empty
from typing import Protocol

from .console import StopFlag
from .errors import ZooError
from .registry import Registry
from .trials import Interrupted, Report, run_trials

#: a worker's exit code when it stopped at a checkpoint because the run was asked to stop
EXIT_INTERRUPTED = 3


class WorkerFailed(ZooError):
    """A worker ended without finishing its trials: an error in it (``details`` holds its traceback) or a signal."""

    def __init__(self, message: str, details: str | None = None):
        super().__init__(message)
        self.details = details


class Backend(Protocol):
    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        """Train every group to its budget; raise Interrupted when `stop` ended it early, WorkerFailed when a worker died."""


class InProcess:
    """Trains the groups one after another in this process."""

    def __init__(self, registry: Registry):
        self.registry = registry

    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        for group in groups:
            run_trials(run_path, group, registry=self.registry, should_stop=stop.is_set, report=report)


class ProcessPool:
    """Trains the groups in at most `workers` spawned processes, one process per group.

    Workers stop at their next checkpoint when the run's stop flag is set, and on SIGTERM
    themselves (a supervisor signals the whole process group). A worker that dies (a signal, or
    the out-of-memory killer) is reported by its exit status; the other groups go on, and their
    checkpoints and results stay for `zoo resume`.
    """

    def __init__(self, workers: int):
        self.workers = workers

    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        import multiprocessing
        from multiprocessing.connection import wait

        context = multiprocessing.get_context("spawn")
        event, queue = context.Event(), context.Queue()
        stop.also(event)
        pending, running, errors, failures, interrupted = list(groups), {}, {}, [], False
        try:
            while pending or running:
                while pending and len(running) < self.workers and not event.is_set():
                    group = pending.pop(0)
                    process = context.Process(target=_work, args=(str(run_path), group, event, queue))
                    process.start()
                    running[process] = group
                wait([p.sentinel for p in running], timeout=0.2)
                _drain(queue, report, errors)
                for process in [p for p in running if p.exitcode is not None]:
                    group = running.pop(process)
                    if process.exitcode == EXIT_INTERRUPTED:
                        interrupted = True
                    elif process.exitcode != 0:
                        _drain(queue, report, errors)
                        sent = errors.pop(tuple(group), None)  # what the worker said, else why it ended
                        failures.append((group, sent or _lost(group, process.exitcode), sent is not None))
                if event.is_set() and pending:
                    interrupted, pending = True, []
        finally:
            for process in running:  # only when this process is itself aborting
                process.kill()
        if failures:
            raise _together(failures)
        if interrupted:
            raise Interrupted()


def _together(failures: list[tuple[list[int], WorkerFailed, bool]]) -> WorkerFailed:
    """One error for every failed group: (group, failure, whether its worker sent it). Groups whose workers
    sent the same error are named together ("trial(s) 0, 1, 2: ..."), so a problem every trial meets is said once."""
    said: dict[str, list[int]] = {}
    for group, failure, sent in failures:
        said.setdefault(str(failure), []).extend(group if sent else [])
    lines = [f"trial(s) {', '.join(map(str, sorted(trials)))}: {text}" if trials else text
             for text, trials in said.items()]
    details = "\n".join(dict.fromkeys(f.details for _, f, _ in failures if f.details))
    return WorkerFailed("; ".join(lines), details or None)


def _drain(queue, report: Report, errors: dict[tuple[int, ...], WorkerFailed]) -> None:
    """Pass on the workers' progress reports; keep the errors they sent before exiting, by group."""
    while True:
        try:
            message = queue.get_nowait()
        except Empty:
            return
        if message[0] == "progress":
            report(*message[1:])
        else:
            _, group, text, details = message
            errors[tuple(group)] = WorkerFailed(text, details)


def _lost(group: list[int], exitcode: int) -> WorkerFailed:
    """The failure of a worker that exited with `exitcode` without saying why."""
    trials = ", ".join(map(str, group))
    if exitcode > 0:
        return WorkerFailed(f"the worker of trial(s) {trials} exited with code {exitcode}")
    number = -exitcode
    name = signal.Signals(number).name if number in signal.valid_signals() else f"signal {number}"
    hint = " (as the out-of-memory killer does)" if number == signal.SIGKILL else ""
    return WorkerFailed(f"the worker of trial(s) {trials} was killed by {name}{hint}; "
                        "the other trials' checkpoints are intact, and 'zoo resume' continues from them")


def _work(run_path: str, group: list[int], event, queue) -> None:
    """A worker process: train one group; exit 0 when done, EXIT_INTERRUPTED when stopped, 1 on an error."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent decides; workers stop at a checkpoint
    signal.signal(signal.SIGTERM, lambda signum, frame: event.set())
    threading.Thread(target=_exit_with_parent, args=(os.getppid(),), daemon=True).start()
    try:
        run_trials(Path(run_path), group, should_stop=event.is_set,
                   report=lambda trial, done, running: queue.put(("progress", trial, done, running)))
    except Interrupted:
        _exit(queue, EXIT_INTERRUPTED)
    except ZooError as exc:
        queue.put(("error", group, str(exc), None))
        _exit(queue, 1)
    except Exception as exc:
        import traceback

        queue.put(("error", group, f"{type(exc).__name__}: {exc}", traceback.format_exc()))
        _exit(queue, 1)
    _exit(queue, 0)


def _exit(queue, code: int) -> None:
    queue.close()
    queue.join_thread()  # the messages are in the pipe before the exit code is
    os._exit(code)


def _exit_with_parent(parent: int) -> None:
    """End this worker when the parent is gone (killed), so no orphan races a later resume."""
    while os.getppid() == parent:
        time.sleep(0.5)
    os._exit(1)
