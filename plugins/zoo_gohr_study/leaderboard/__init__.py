"""GOHR leaderboards: every agent of a board on every rule, cached per cell, ranked by the paper's tournament."""
