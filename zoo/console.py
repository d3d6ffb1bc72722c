"""The terminal side of a run: its progress bar, and the signals (Ctrl-C, SIGTERM) that stop it at a checkpoint."""

from __future__ import annotations

import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from .metrics import Running


class StopFlag:
    """Set by the first SIGINT or SIGTERM (trials stop at their next checkpoint); a second one aborts.

    ``signal_name`` records which signal asked for the stop, so that the command can exit as
    that signal's convention says (130 for SIGINT, 143 for SIGTERM).
    """

    def __init__(self):
        self._event = threading.Event()
        self._others: list[Any] = []
        self.signal_name: str | None = None

    def is_set(self) -> bool:
        return self._event.is_set()

    def also(self, event: Any) -> None:
        """Set `event` (e.g. a multiprocessing Event that workers watch) together with this flag."""
        self._others.append(event)
        if self.is_set():
            event.set()

    def set(self, signal_name: str | None = None) -> None:
        self.signal_name = self.signal_name or signal_name
        self._event.set()
        for other in self._others:
            other.set()

    def _handle(self, signum, frame) -> None:
        name = signal.Signals(signum).name
        if self._event.is_set():
            raise KeyboardInterrupt
        self.set(name)
        again = "Ctrl-C" if signum == signal.SIGINT else "SIGTERM"
        print(f"\n{name}: stopping at the next checkpoint ({again} again to abort; the last checkpoint stays)",
              file=sys.stderr)

    @contextmanager
    def installed(self) -> Iterator[StopFlag]:
        """Handle SIGINT and SIGTERM with this flag while the block runs (in the main thread only)."""
        previous = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, self._handle)
        try:
            yield self
        finally:
            for sig, handler in previous.items():
                signal.signal(sig, handler)


class ProgressBar:
    """A rich progress bar over the budget of all trials (on stderr), with their running returns.

    Beside the bar: ``return``, the mean over trials of each trial's mean return of its last 100
    episodes, and ``eval``, the mean of the trials' latest evaluation returns (``budget.eval_every``).
    """

    def __init__(self, *, enabled: bool, label: str, trials: int, amount: int, unit: str):
        self.enabled, self.label = enabled, label
        self.unit = unit
        self.total = trials * amount
        self.per_trial: dict[int, int] = {}
        self.running: dict[int, Running] = {}
        self._progress = None

    def __enter__(self):
        if self.enabled:
            import rich.markup
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                Progress,
                TextColumn,
                TimeElapsedColumn,
                TimeRemainingColumn,
            )

            self._progress = Progress(
                TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(), TextColumn(self.unit),
                TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[returns]}"),
                console=Console(stderr=True), transient=False,
            )
            self._progress.__enter__()
            self._task = self._progress.add_task(rich.markup.escape(self.label), total=self.total, returns="")
        return self

    def update(self, trial: int, done: int, running: Running | None = None) -> None:
        self.per_trial[trial] = done
        if running is not None:
            self.running[trial] = running
        if self._progress is not None:
            self._progress.update(self._task, completed=min(self.total, sum(self.per_trial.values())),
                                  returns=self.returns_text())

    def returns_text(self) -> str:
        """``return R`` and ``eval E`` over the trials that have them (empty before the first episode)."""
        parts = []
        for label, field in (("return", "mean_return"), ("eval", "eval_return")):
            values = [getattr(r, field) for r in self.running.values() if getattr(r, field) is not None]
            if values:
                parts.append(f"{label} {sum(values) / len(values):.1f}")
        return " ".join(parts)

    def __exit__(self, *exc):
        if self._progress is not None:
            self._progress.__exit__(*exc)
