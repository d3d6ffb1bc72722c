"""Errors that the CLI turns into one clear message and exit code 2."""

from __future__ import annotations

import re
from dataclasses import dataclass

_CONTROL = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029]")


class ZooError(Exception):
    """A user-facing error: its message is printed as is, without a traceback."""


@dataclass(frozen=True)
class Problem:
    """One thing wrong with an input, and where it is."""

    message: str
    source: str | None = None
    line: int | None = None
    column: int | None = None
    field: str | None = None

    def __str__(self) -> str:
        place = self.source or ""
        if self.line is not None:
            place += f":{self.line}"
            if self.column is not None:
                place += f":{self.column}"
        head = ": ".join(part for part in (place, self.field) if part)
        return escape_controls(f"{head}: {self.message}" if head else self.message)


class RunFailed(ZooError):
    """A run that started and then failed (exit status 1; bad input is 2)."""


class SpecError(ZooError):
    """A run spec that cannot be used; carries every problem found."""

    def __init__(self, problems: list[Problem]):
        self.problems = problems
        super().__init__("\n".join(str(p) for p in problems))


def escape_controls(text: str) -> str:
    """`text` on one line: line breaks and other control characters written as escapes (a value quoted
    from a spec, such as an unknown name, may hold any of them)."""
    return _CONTROL.sub(lambda found: repr(found.group())[1:-1], text)


def one_line(text: str) -> str:
    """An error message on one line: its lines joined by spaces, other control characters escaped."""
    return escape_controls(" ".join(line.strip() for line in text.splitlines() if line.strip()))


def did_you_mean(given: str, choices: list[str] | tuple[str, ...] | set[str]) -> str:
    """Return ' (did you mean 'x'?)' for the closest choice, or ''."""
    import difflib

    close = difflib.get_close_matches(str(given), sorted(choices), n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""
