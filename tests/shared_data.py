"""Where the shared conformance data lives: the folder `shared/` beside the repository (as CI has it)."""

from __future__ import annotations

from pathlib import Path

import pytest

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GOLDEN = SHARED / "gohr-golden"
RULES_ROOT = SHARED / "gohr-rules"


def require_shared() -> None:
    """Fail (not skip) when the shared data folder beside the repo is missing."""
    if not (GOLDEN.is_dir() and RULES_ROOT.is_dir()):
        pytest.fail(f"GOHR golden data not found: expected {GOLDEN} and {RULES_ROOT} "
                    "(clone the shared/ folder beside the repository)")
