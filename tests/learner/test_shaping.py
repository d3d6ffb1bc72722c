"""The substrate's table of reward shapings: each transform once, the agents' spec words mapped onto it."""

from typing import get_args

import pytest
import torch
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
