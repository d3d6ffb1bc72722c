"""Registers the built-in trackers; each imports its library only when a trial opens it."""

from __future__ import annotations

from zoo import TENSORBOARD, NoParams, TrackerEntry, hookimpl

from .params import MlflowParams, WandbParams


def _tensorboard(params, record):
    from .tensorboard import TensorBoardTracker

    return TensorBoardTracker(record)


def _mlflow(params, record):
    from .mlflow_tracker import MlflowTracker

    return MlflowTracker(params, record)


def _wandb(params, record):
    from .wandb_tracker import WandbTracker

    return WandbTracker(params, record)


@hookimpl
def register_trackers(register):
    register(TrackerEntry(name=TENSORBOARD, params=NoParams, factory=_tensorboard,
                          description="TensorBoard events in each trial's tb/ folder (logging.tensorboard, on by default)"))
    register(TrackerEntry(name="mlflow", params=MlflowParams, factory=_mlflow, modules=("mlflow",), extra="mlflow",
                          description="an MLflow run per trial, in the run folder's mlflow.db or a tracking URI (the 'mlflow' extra)"))
    register(TrackerEntry(name="wandb", params=WandbParams, factory=_wandb, modules=("wandb",), extra="wandb",
                          description="a Weights & Biases run per trial, offline in the run folder's wandb/ (the 'wandb' extra)"))
