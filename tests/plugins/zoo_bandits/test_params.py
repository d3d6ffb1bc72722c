"""The meta-controllers' parameters: the papers' defaults, and the range each field accepts (a value just
outside it is refused when the spec is read, the edge itself accepted)."""

import pytest
from pydantic import ValidationError
from zoo_bandits.classic import SlidingWindowParams, ThompsonParams, UCB1Params
from zoo_bandits.population import PopulationParams
from zoo_lbc.bandits import VotingParams


def test_defaults_are_the_papers():
    # GDI Table 6 and App. G, completed from DiCE's App. A (docs/algorithms/gdi.md)
    assert PopulationParams().model_dump() == {
        "bandits": 7, "candidates": 3, "ucb": 1.0, "learning_rates": [0.05, 0.1, 0.2], "widths": [2, 3, 4],
        "modes": ["argmax", "random"], "structure": "factorized", "smoothing": "window", "tilings": 3,
        "tile_sizes": [2, 3, 4], "tile_offset": 0.6, "log1p_coordinates": []}
    assert SlidingWindowParams().model_dump() == {"window": 160, "beta": 1.0, "epsilon": 0.5}  # Agent57
    assert UCB1Params().exploration == 2.0  # UCB1: mean + sqrt(2 ln t / n)
    assert ThompsonParams().prior_variance == 1.0
    assert VotingParams().model_dump() == {"bandits": 7, "top_d": 4, "c_range": (0.5, 1.5), "replace_every": 50,
                                           "mode": "vote"}  # LBC Table 3


RANGES = [  # (params, field, accepted values, refused values)
    (PopulationParams, "bandits", [1, 1000], [0, 1001]),
    (PopulationParams, "candidates", [1, 1000], [0, 1001]),
    (PopulationParams, "ucb", [0.0], [-1e-9]),
    (PopulationParams, "learning_rates", [[0.5]], [[]]),
    (PopulationParams, "widths", [[0]], [[]]),
    (PopulationParams, "modes", [["random"]], [[]]),
    (PopulationParams, "tilings", [1, 100], [0, 101]),
    (PopulationParams, "tile_sizes", [[1]], [[], [0]]),
    (PopulationParams, "tile_offset", [0.0, 0.999], [-1e-9, 1.0]),
    (SlidingWindowParams, "window", [1, 10**6], [0, 10**6 + 1]),
    (SlidingWindowParams, "beta", [0.0], [-1e-9]),
    (SlidingWindowParams, "epsilon", [0.0, 1.0], [-1e-9, 1.0 + 1e-9]),
    (UCB1Params, "exploration", [0.0], [-1e-9]),
    (ThompsonParams, "prior_variance", [1e-9], [0.0]),
    (VotingParams, "bandits", [1, 1000], [0, 1001]),
    (VotingParams, "top_d", [1, 1000], [0, 1001]),
    (VotingParams, "replace_every", [0], [-1]),
    (VotingParams, "c_range", [(0.0, 0.0), (1.0, 1.0)], [(-1e-9, 1.0), (1.0, 1.0 - 1e-9)]),
]


@pytest.mark.parametrize("params,field,accepted,refused", RANGES,
                         ids=[f"{p.__name__}.{f}" for p, f, _, _ in RANGES])
def test_each_field_accepts_its_range_and_refuses_what_lies_outside(params, field, accepted, refused):
    for value in accepted:
        assert getattr(params(**{field: value}), field) == value
    for value in refused:
        with pytest.raises(ValidationError):
            params(**{field: value})
