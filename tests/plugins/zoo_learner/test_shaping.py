"""The substrate's table of reward shapings: each transform once, the agents' spec words mapped onto it."""

from typing import get_args

import pytest
import torch
from loss_reference import h_log as h_log_reference
from loss_reference import h_pow as h_pow_reference
from loss_reference import rs1, rs3
from zoo_dice.loss import h_literal
from zoo_dice.params import REWARD_SHAPES, DiCEParams
from zoo_lbc.params import SHAPING_NAMES, MemberParams
from zoo_lbc.shaping import rs2
from zoo_learner.shaping import SHAPINGS, h_log


@pytest.mark.parametrize("field, words", [(DiCEParams.model_fields["reward_shape"], REWARD_SHAPES),
                                          (MemberParams.model_fields["shaping"], SHAPING_NAMES)])
def test_every_spec_word_names_a_shaping_of_the_table(field, words):
    assert set(get_args(field.annotation)) == set(words)
    assert set(words.values()) <= set(SHAPINGS)


def test_gdi_h_log_dice_literal_h_and_lbc_rs2_are_one_transform():
    assert h_log is h_literal is rs2 is SHAPINGS["log"]


@pytest.mark.parametrize("name", sorted(SHAPINGS))
def test_shapings_keep_zero_and_the_order_of_rewards(name):
    r = torch.linspace(-50.0, 50.0, 2001, dtype=torch.float64)
    shaped = SHAPINGS[name](r)
    assert float(SHAPINGS[name](torch.zeros(1, dtype=torch.float64))) == 0.0
    assert (shaped.diff() >= 0).all()


def signed_log(r):  # DiCE's h read symmetrically
    return torch.sign(r) * torch.log(r.abs() + 1.0)


@pytest.mark.parametrize("name, formula", [("log", h_log_reference), ("signed_log", signed_log), ("pow", h_pow_reference),
                                           ("sqrt", rs1), ("tanh", rs3), ("none", lambda r: r)])
def test_each_shaping_is_its_papers_formula(name, formula):
    """Against the tables' formulas written out independently (tests/loss_reference.py), on rewards of
    both signs from tiny to large, where the 0.001 * r terms and the tanh bounds show."""
    r = torch.tensor([-1e4, -30.0, -2.5, -1.0, -0.1, 0.0, 0.1, 1.0, 2.5, 30.0, 1e4], dtype=torch.float64)
    assert torch.allclose(SHAPINGS[name](r), formula(r), rtol=1e-12, atol=0.0)
