"""Statistics every plugin shares: bootstrap confidence intervals and rank tests."""

from .summary import bootstrap_ci, one_sided_u_tests

__all__ = ["bootstrap_ci", "one_sided_u_tests"]
