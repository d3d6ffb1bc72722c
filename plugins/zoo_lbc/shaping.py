"""The members' reward shapings under LBC's Table 3 names, as transforms of the substrate's table."""

from __future__ import annotations

from zoo_learner.shaping import SHAPINGS

from .params import SHAPING_NAMES

rs1, rs2, rs3 = (SHAPINGS[SHAPING_NAMES[name]] for name in ("rs1", "rs2", "rs3"))
