"""The checks of ``zoo check`` for a plugin's own test suite, in one line::

    from zoo_check.testing import check_plugin

    def test_contract():
        check_plugin("mypkg")
"""

from __future__ import annotations

from zoo import Registry, get_registry

from .checks import run_checks
from .results import Result


def check_plugin(target: str, registry: Registry | None = None) -> list[Result]:
    """Run every check of `target` (a plugin or one entry, as ``zoo check`` takes); an AssertionError lists the
    checks that failed, one per line. Returns every result (skipped checks included)."""
    results = list(run_checks(target, registry or get_registry()))
    failed = [str(result) for result in results if result.status == "FAIL"]
    assert not failed, "zoo check failed:\n" + "\n".join(failed)
    return results
