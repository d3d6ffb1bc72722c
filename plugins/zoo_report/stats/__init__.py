"""Statistics every plugin shares: bootstrap confidence intervals and rank tests."""

from .summary import MIN_TEST_TRIALS, bootstrap_ci, one_sided_u_tests, too_few_to_test

__all__ = ["MIN_TEST_TRIALS", "bootstrap_ci", "one_sided_u_tests", "too_few_to_test"]
