"""Write docs/hooks.md from zoo/hookspecs.py and the hook modules of built-in plugins' kinds.

Run after changing a hook; a test checks the page is current.
"""

from __future__ import annotations

import inspect
import sys
from pathlib import Path

from zoo_gohr import rule_sets
from zoo_report import reporters
from zoo_sarsa import feature_maps

from zoo import hookspecs

DOC = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"
#: hook modules of the kinds built-in plugins declare (register_kinds), with the plugin that declares each
PLUGIN_HOOKS = [("zoo_gohr", rule_sets), ("zoo_report", reporters), ("zoo_sarsa", feature_maps)]


def render() -> str:
    """The markdown page of every hook, in the order hookspecs.py declares them."""
    parts = [
        "# Plugin hooks\n",
        "Generated from `zoo/hookspecs.py` by `scripts/gen_hooks_doc.py`; do not edit by hand.\n",
        inspect.getdoc(hookspecs) + "\n",
    ]
    parts += _hooks(hookspecs, "##")
    parts.append("## Hooks of built-in plugins\n\nThese plugins declare kinds of entries (``register_kinds``) with hooks "
                 "of their own; a plugin implements them as it implements the hooks above.\n")
    for plugin, module in PLUGIN_HOOKS:
        parts.append(f"### `{plugin}`: `{module.__name__}`\n\n{inspect.getdoc(module)}\n")
        parts += _hooks(module, "####")
    return "\n".join(parts)


def _hooks(module, heading: str) -> list[str]:
    """A section per hook specification of `module`, in the order the module declares them."""
    hooks = [f for _, f in inspect.getmembers(module, inspect.isfunction)
             if f.__name__.startswith("register_") and f.__module__ == module.__name__]
    return [f"{heading} `{f.__name__}{str(inspect.signature(f)).replace(chr(39), '')}`\n\n{inspect.getdoc(f)}\n"
            for f in sorted(hooks, key=lambda f: f.__code__.co_firstlineno)]


if __name__ == "__main__":
    DOC.write_text(render(), encoding="utf-8")
    sys.stdout.write(f"wrote {DOC}\n")
