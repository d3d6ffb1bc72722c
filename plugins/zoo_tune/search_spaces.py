"""The tune plugin's own hook: other plugins contribute named search spaces with ``register_search_spaces``.

The tune plugin declares the kind ``search_space`` (``register_kinds``), so a tuning file may name a
space (``search_space: ppo``) instead of writing its distributions out; ``zoo list search_space``
shows them::

    from zoo import hookimpl
    from zoo_tune.search_spaces import SearchSpaceEntry

    @hookimpl
    def register_search_spaces(register):
        register(SearchSpaceEntry(name="my-agent", path=Path(__file__).parent / "my-agent.yaml"))
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from zoo import Entry, KindEntry, hookspec


@dataclass(frozen=True)
class SearchSpaceEntry(Entry):
    """A search space for ``zoo tune``: ``path`` is a YAML file in the form of a tuning file's ``space``
    (spec paths, as for ``--set``, mapped to distributions)."""

    path: Path | None = None


@hookspec
def register_search_spaces(register: Callable[[SearchSpaceEntry], None]) -> None:
    """Contribute search spaces for ``zoo tune``: ``register(SearchSpaceEntry(name=..., path=...))``.

    A tuning file uses one by name (``search_space: ppo``), and its own ``space`` adds to it or replaces entries.
    """


SEARCH_SPACES = KindEntry(name="search_space", hookspecs=sys.modules[__name__], hook="register_search_spaces",
                          entry=SearchSpaceEntry, label="search space",
                          description="named search spaces for zoo tune (search_space: NAME in a tuning file)")
