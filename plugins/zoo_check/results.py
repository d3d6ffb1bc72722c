"""What one check reports (:class:`Result`), and the example an entry is checked with."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import ValidationError

from zoo import Entry


@dataclass(frozen=True)
class Result:
    """One check of one entry: PASS, FAIL or SKIP, and why."""

    status: str
    subject: str
    check: str
    reason: str = ""

    def __str__(self) -> str:
        return f"{self.status} {self.subject}: {self.check}{f' ({self.reason})' if self.reason else ''}"


def run(subject: str, check: str, body: Callable[[], str | None]) -> Result:
    """`body` as a result: it returns a reason to pass with (or None), raises AssertionError to fail."""
    try:
        return Result("PASS", subject, check, body() or "")
    except AssertionError as exc:
        return Result("FAIL", subject, check, str(exc))
    except Exception as exc:  # the entry's own code failed: that is the finding
        return Result("FAIL", subject, check, f"{type(exc).__name__}: {' '.join(str(exc).split())}")


def example(subject: str, entry: Entry) -> tuple[dict[str, Any] | None, Result | None]:
    """The params block `entry` is checked with (its declared ``example``), or why it cannot be checked: a SKIP
    when it declares none that it needs, a FAIL when its example is not valid params."""
    if entry.example is None:
        return None, Result("SKIP", subject, "contract", "it declares no example (example=None): "
                            + (entry.description or "it cannot be built from a spec block on its own"))
    block = dict(entry.example)
    missing = [name for name, field in entry.params.model_fields.items() if field.is_required() and name not in block]
    if missing:
        return None, Result("SKIP", subject, "contract", f"its params need values ({', '.join(missing)}) that no check "
                            "can guess; declare them with example={...} on the entry")
    try:
        entry.params.model_validate(block)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'params'}: {e['msg']}" for e in exc.errors())
        return None, Result("FAIL", subject, "example params", problems)
    return block, None
