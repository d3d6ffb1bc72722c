"""The GOHR plugin's own hook: other plugins contribute folders of rule files with ``register_rule_sets``.

The GOHR plugin declares the kind ``rule_set`` (``register_kinds``), so the registry adds this
module's hook specification before it asks any plugin for rule sets::

    from zoo import hookimpl
    from zoo_gohr.rule_sets import RuleSetEntry

    @hookimpl
    def register_rule_sets(register):
        register(RuleSetEntry(name="lab", path=Path(__file__).parent / "rules"))
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zoo import Entry, KindEntry, hookspec


@dataclass(frozen=True)
class RuleSetEntry(Entry):
    """A directory of GOHR rule files, addressable by ``<name>/<relative path>``."""

    path: Path | None = None


@hookspec
def register_rule_sets(register: Callable[[RuleSetEntry], None]) -> None:
    """Contribute GOHR rule sets: ``register(RuleSetEntry(name=..., path=...))`` for a directory of rule files.

    Rules inside are addressable from a spec as ``<rule set>/<relative path without .txt>``.
    """


RULE_SETS = KindEntry(name="rule_set", hookspecs=sys.modules[__name__], hook="register_rule_sets", entry=RuleSetEntry,
                     label="rule set", description="folders of GOHR rule files, addressable from a spec by name")
