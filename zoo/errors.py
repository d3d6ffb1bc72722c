"""Errors that the CLI turns into one clear message and exit code 2."""

from __future__ import annotations

import errno
import os
import re
from dataclasses import dataclass
from pathlib import Path

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


def error_message(exc: BaseException) -> str:
    """What the user reads for an error that ends a command.

    A SpecError lists its problems one per line; other ZooErrors are one line. An OSError that no
    command turned into a ZooError (a full or read-only disk mid-write, a file where a folder should
    be) names its file and the reason; anything else is a bug, said as such, with the way to its traceback.
    """
    if isinstance(exc, SpecError) and len(exc.problems) > 1:
        return "error:\n" + "\n".join(str(problem) for problem in exc.problems)
    if isinstance(exc, ZooError):
        return f"error: {one_line(str(exc))}"
    if isinstance(exc, OSError) and exc.strerror:
        if exc.filename is None:
            return f"error: {one_line(exc.strerror)}"
        if exc.errno in (errno.EEXIST, errno.ENOTDIR) and exc.strerror == os.strerror(exc.errno):
            # the system's bare words for a file that stands where a folder is needed
            exc = failure_at(Path(exc.filename), exc, "use")
        return f"error: {one_line(f'{exc.filename}: {exc.strerror}')}"
    return (f"error: internal error: {type(exc).__name__}: {one_line(str(exc))}"
            " (a bug in zoo or one of its plugins; run with --debug for the traceback)")


def failure_at(path: Path, exc: OSError, action: str) -> OSError:
    """`exc` restated for `path` rather than a temporary name, naming a file that stands where a folder should."""
    path = Path(path)
    existing = next((p for p in path.parents if p.exists()), None)
    if existing is not None and not existing.is_dir():
        reason = f"{existing} is a file, not a folder"
    elif existing is not None and existing != path.parent:
        reason = f"no such folder {path.parent}"
    elif path.is_dir() and action == "write":
        reason = "is a folder"
    elif path.exists() and not path.is_dir() and action != "write":
        reason = "is a file, not a folder"
    else:
        reason = exc.strerror or str(exc)
    return OSError(exc.errno, f"cannot {action}: {reason}", str(path))
