"""A third-party backend (a test plugin): each trial group of a run trains in a Python subprocess of its own.

The tests put this folder on PYTHONPATH with a ``zoo`` entry point naming this module. The driver
starts one ``python -m zoo_subprocess_backend RUN TRIALS`` at a time; a stop of the run (Ctrl-C,
SIGTERM) is passed on as SIGTERM, on which the child stops at its next checkpoint and exits with
EXIT_INTERRUPTED. When ZOO_SUBPROCESS_LOG names a file, each child appends ``PID TRIALS`` to it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

from pydantic import Field

from zoo import BackendEntry, BackendOption, BackendParams, Interrupted, ZooError, hookimpl, run_trials

EXIT_INTERRUPTED = 3


class SubprocessParams(BackendParams):
    """Trial groups train one after another, each in a subprocess of its own."""

    timeout: float = Field(default=600.0, gt=0, description="seconds a group may train before it is killed")


class SubprocessTrials:
    def __init__(self, params: SubprocessParams):
        self.params = params

    def train(self, run_path: Path, groups: list[list[int]], stop, report) -> None:
        for group in groups:
            if stop.is_set():
                raise Interrupted()
            child = subprocess.Popen([sys.executable, "-m", __name__, str(run_path), ",".join(map(str, group))])
            try:
                code = _wait(child, stop, self.params.timeout)
            finally:
                if child.poll() is None:  # this process is itself aborting
                    child.kill()
            if code == EXIT_INTERRUPTED:
                raise Interrupted()
            if code != 0:
                raise ZooError(f"the subprocess of trial(s) {group} exited with code {code}")


def _wait(child: subprocess.Popen, stop, timeout: float) -> int:
    """The child's exit code; it is asked to stop (SIGTERM) once the run's stop flag is set."""
    told, waited = False, 0.0
    while child.poll() is None:
        if stop.is_set() and not told:
            child.send_signal(signal.SIGTERM)
            told = True
        if waited > timeout:
            child.kill()
        try:
            child.wait(0.1)
        except subprocess.TimeoutExpired:
            waited += 0.1
    return child.returncode


def _child(run_path: str, trials: str) -> int:
    group = [int(trial) for trial in trials.split(",")]
    stopping = threading.Event()
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the driver decides, and passes a stop on as SIGTERM
    signal.signal(signal.SIGTERM, lambda signum, frame: stopping.set())
    log = os.environ.get("ZOO_SUBPROCESS_LOG")
    if log:
        with open(log, "a", encoding="utf-8") as out:
            out.write(f"{os.getpid()} {trials}\n")
    try:
        run_trials(Path(run_path), group, should_stop=stopping.is_set)
    except Interrupted:
        return EXIT_INTERRUPTED
    return 0


@hookimpl
def register_backends(register):
    register(BackendEntry(
        name="subprocess", params=SubprocessParams, factory=lambda params, registry, batched: SubprocessTrials(params),
        options=(BackendOption("--group-timeout", "timeout", metavar="SECONDS", type=float,
                               help="Seconds a trial group may train"),),
        description="each trial group in a subprocess of its own (a test plugin)"))


if __name__ == "__main__":
    sys.exit(_child(*sys.argv[1:]))
