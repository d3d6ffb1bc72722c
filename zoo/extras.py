"""Optional dependencies: a plugin loads without its package extra and names that extra when it is used."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import ZooError


def require_extra(module: str, extra: str, what: str) -> ModuleType:
    """Import `module`, or raise a ZooError saying that `what` needs the package extra `extra`."""
    try:
        return importlib.import_module(module)
    except ImportError:
        raise ZooError(f"{what} needs the '{extra}' extra: pip install 'zoo-rl[{extra}]'") from None
