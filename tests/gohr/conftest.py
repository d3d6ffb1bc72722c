import sys
from pathlib import Path

import pytest

PLUGINS = Path(__file__).resolve().parents[2] / "plugins"
if str(PLUGINS) not in sys.path:
    sys.path.insert(0, str(PLUGINS))

SHARED = Path(__file__).resolve().parents[2].parent / "shared"
GOLDEN = SHARED / "gohr-golden"
RULES_ROOT = SHARED / "gohr-rules"


def require_shared() -> None:
    """Fail (not skip) when the shared data folder beside the repo is missing."""
    if not (GOLDEN.is_dir() and RULES_ROOT.is_dir()):
        pytest.fail(f"GOHR golden data not found: expected {GOLDEN} and {RULES_ROOT} "
                    "(clone the shared/ folder beside the repository)")
