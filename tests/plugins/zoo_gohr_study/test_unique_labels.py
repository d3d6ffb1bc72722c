"""GOHR report labels: names where they tell runs apart, then ids, then places (a run given twice, a copied folder)."""

from __future__ import annotations

import pytest
from zoo_gohr_study.reporter import unique_labels


@pytest.mark.timeout(10)  # the loop that did not end
@pytest.mark.parametrize("names, ids, labels", [
    (["a", "b"], ["a-1", "b-1"], ["a", "b"]),
    (["foo", "foo", "foo-2"], ["foo-1", "foo-2", "x"], ["foo-1", "foo-2", "x"]),
    (["a", "a"], ["r", "r"], ["r (1)", "r (2)"]),  # one run compared with itself: once looped forever
    (["a", "a", "b"], ["r", "r", "s"], ["r (1)", "r (2)", "b"]),
])
def test_labels_are_unique_and_found_in_few_passes(names, ids, labels):
    assert unique_labels(names, ids) == labels
