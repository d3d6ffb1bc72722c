"""The settings of the trackers that take any (``logging.mlflow``, ``logging.wandb`` in a spec)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from zoo import Params


class MlflowParams(Params):
    """Where MLflow keeps the runs: a tracking URI, by default a SQLite store in the run folder."""

    tracking_uri: str | None = Field(
        default=None, max_length=2000,
        description="an MLflow tracking URI (sqlite:///..., http://...); default: the run folder's mlflow.db")
    experiment: str | None = Field(default=None, min_length=1, max_length=500,
                                   description="the MLflow experiment; default: the run's name")


class WandbParams(Params):
    """A Weights & Biases project; runs are written offline under the run folder (``wandb sync`` uploads them)."""

    project: str = Field(default="zoo", min_length=1, max_length=128, description="the W&B project")
    entity: str | None = Field(default=None, min_length=1, max_length=128, description="the W&B team or user")
    mode: Literal["offline", "online"] = Field(default="offline",
                                               description="offline writes only the run folder's wandb/")
