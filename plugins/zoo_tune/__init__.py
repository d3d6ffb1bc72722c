"""Hyperparameter search with Optuna: the ``zoo tune`` command and the tuning files ``zoo validate`` checks."""
