"""The kernel's own plugin, ``core``: the ``local`` backend, which trains a run's trial groups in this process or
in a pool of local worker processes (`zoo.workers`).

The registry loads it from its entry point like a built-in plugin, in every registry; no kernel module imports it.
"""

from __future__ import annotations

from pathlib import Path

from .console import StopFlag
from .entries import BackendEntry, BackendParams
from .hookspecs import hookimpl
from .registry import Registry
from .trials import Report
from .workers import InProcess, ProcessPool


class LocalParams(BackendParams):
    """Trials run in this machine's processes."""


class Local:
    """The local backend: the groups in this process when there is one worker or one group, else in a `ProcessPool`."""

    def __init__(self, params: LocalParams, registry: Registry):
        self.params, self.registry = params, registry

    def train(self, run_path: Path, groups: list[list[int]], stop: StopFlag, report: Report) -> None:
        if self.params.workers == 1 or len(groups) == 1:
            InProcess(self.registry).train(run_path, groups, stop, report)
        else:
            ProcessPool(self.params.workers).train(run_path, groups, stop, report)


@hookimpl
def register_backends(register):
    register(BackendEntry(name="local", params=LocalParams, factory=lambda params, registry, batched: Local(params, registry),
                          description="this machine's processes: one, or a pool of backend.workers"))
