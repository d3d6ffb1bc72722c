"""The terminal side of a run: its progress bar, and the signals (Ctrl-C, SIGTERM) that stop it at a checkpoint."""

from __future__ import annotations

import re
import signal
import sys
import threading
import time
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
    """The progress of all trials over their budget (on stderr), with their running returns.

    Beside the count: ``return``, the mean over trials of each trial's mean return of its last 100
    episodes, and ``eval``, the mean of the trials' latest evaluation returns (``budget.eval_every``).
    On a terminal it is a rich bar that fits the terminal's width: the run's short name and the count
    always, then as room allows the returns, the time remaining, the bar and the time elapsed. Elsewhere
    (a log file) it is a plain line at each further tenth of the budget, at least every `PLAIN_EVERY`
    seconds while it moves, and at the end. The total grows to the steps a trial actually ran when
    its agent overshoots the budget (SB3 collects whole rollouts).
    """

    #: seconds between plain lines while the run moves less than a tenth of its budget
    PLAIN_EVERY = 60.0
    NAME_WIDTH = 20
    #: the optional parts of the bar, most wanted first, with the width each takes
    OPTIONAL = (("returns", 26), ("remaining", 8), ("bar", 12), ("elapsed", 8))

    def __init__(self, *, enabled: bool, label: str, trials: int, amount: int, unit: str, console=None):
        self.enabled, self.name = enabled, short_name(label, self.NAME_WIDTH)
        self.unit, self.amount, self.trials = unit, amount, trials
        self.per_trial: dict[int, int] = {}
        self.running: dict[int, Running] = {}
        self._console = console
        self._progress = None
        self._plain = False
        self._last_line: tuple[float, int] | None = None
        self._started = 0.0

    @property
    def total(self) -> int:
        """The budget of all trials, each trial counted at least as far as it got."""
        return sum(max(self.amount, self.per_trial.get(trial, 0)) for trial in range(self.trials))

    @property
    def done(self) -> int:
        return sum(self.per_trial.values())

    def __enter__(self):
        if not self.enabled:
            return self
        from rich.console import Console
        from rich.markup import escape

        console = self._console or Console(stderr=True)
        self._started = time.monotonic()
        if not console.is_terminal:
            self._plain, self._console = True, console
            return self
        self._progress = self._rich_progress(console)
        self._progress.__enter__()
        self._task = self._progress.add_task(escape(self.name), total=self.total, returns="")
        return self

    def _rich_progress(self, console):
        """A rich Progress whose columns fit the console's width, the optional ones kept by priority."""
        from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        digits = len(str(self.total))
        room = console.width - len(self.name) - (2 * digits + 2 + len(self.unit)) - 2
        kept = set()
        for part, width in self.OPTIONAL:
            if width + 1 <= room:
                kept.add(part)
                room -= width + 1
        columns = [TextColumn("[bold]{task.description}")]
        if "bar" in kept:
            columns.append(BarColumn(bar_width=min(40, 10 + room)))
        columns.append(TextColumn(f"{{task.completed:>{digits}}}/{{task.total}} {self.unit}"))
        columns += [column for part, column in (("elapsed", TimeElapsedColumn()), ("remaining", TimeRemainingColumn()),
                                                 ("returns", TextColumn("{task.fields[returns]}"))) if part in kept]
        return Progress(*columns, console=console, transient=False)

    def update(self, trial: int, done: int, running: Running | None = None) -> None:
        self.per_trial[trial] = done
        if running is not None:
            self.running[trial] = running
        if self._progress is not None:
            self._progress.update(self._task, completed=self.done, total=self.total, returns=self.returns_text())
        elif self._plain:
            self._plain_line()

    def _plain_line(self, final: bool = False) -> None:
        """A line when the run crossed another tenth of its budget, or moved after `PLAIN_EVERY` seconds."""
        now, done, total = time.monotonic(), self.done, self.total
        if self._last_line is not None and not final:
            at, last = self._last_line
            if done == last or (done * 10 // total == last * 10 // total and now - at < self.PLAIN_EVERY):
                return
        if final and self._last_line is not None and self._last_line[1] == done:
            return
        self._last_line = (now, done)
        elapsed = int(now - self._started)
        line = f"{self.name}: {done}/{total} {self.unit} ({100 * done // total}%)" \
               f" {elapsed // 3600}:{elapsed // 60 % 60:02d}:{elapsed % 60:02d} {self.returns_text()}"
        self._console.print(line.rstrip(), markup=False, highlight=False, soft_wrap=True)

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
        elif self._plain and self.per_trial:
            self._plain_line(final=True)


#: the time a run folder's name ends with (NAME-YYYYMMDD-HHMMSS, and -N when taken)
_FOLDER_TIME = re.compile(r"-[0-9]{8}-[0-9]{6}(-[0-9]+)?$")


def short_name(label: str, width: int) -> str:
    """A run folder's name without its creation time, cut to `width` characters with an ellipsis."""
    name = _FOLDER_TIME.sub("", label) or label
    return name if len(name) <= width else name[: width - 1] + "…"
