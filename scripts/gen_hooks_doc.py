"""Write docs/hooks.md from zoo/hookspecs.py (run after changing a hook; a test checks it is current)."""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from zoo import hookspecs

DOC = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"


def render() -> str:
    """The markdown page of every hook, in the order hookspecs.py declares them."""
    parts = [
        "# Plugin hooks\n",
        "Generated from `zoo/hookspecs.py` by `scripts/gen_hooks_doc.py`; do not edit by hand.\n",
        inspect.getdoc(hookspecs) + "\n",
    ]
    hooks = [f for _, f in inspect.getmembers(hookspecs, inspect.isfunction) if f.__name__.startswith("register_")]
    for function in sorted(hooks, key=lambda f: f.__code__.co_firstlineno):
        signature = str(inspect.signature(function)).replace("'", "")
        parts.append(f"## `{function.__name__}{signature}`\n\n{inspect.getdoc(function)}\n")
    return "\n".join(parts)


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {DOC}\n")
