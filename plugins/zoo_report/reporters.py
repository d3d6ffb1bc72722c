"""Reporters: the kind of entry ``reporter``, reports on runs of given environments.

The report plugin declares the kind (``register_kinds``), and plugins contribute reporters through its
``register_reporters`` hook (Atari's normalised scores, GOHR's cumulative errors).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from zoo import Entry, KindEntry, hookspec


@dataclass(frozen=True)
class ReporterEntry(Entry):
    """Reports on runs of some environments.

    ``report(runs: list[RunFolder], out: Path) -> list[Path]`` writes figures and tables into ``out``;
    ``compare(a: RunFolder, b: RunFolder) -> str``, when given, compares two runs for ``zoo compare``.
    """

    envs: tuple[str, ...] = ()
    report: Callable[..., Any] | None = None
    compare: Callable[..., Any] | None = None


@hookspec
def register_reporters(register: Callable[[ReporterEntry], None]) -> None:
    """Contribute reports for runs of given environments: ``register(ReporterEntry(...))``.

    ``zoo report`` and ``zoo compare`` use the reporter whose ``envs`` names a run's environment.
    """


REPORTERS = KindEntry(name="reporter", hookspecs=sys.modules[__name__], hook="register_reporters", entry=ReporterEntry,
                      label="reporter", description="reports on runs of given environments (zoo report, zoo compare)")
