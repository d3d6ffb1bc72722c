"""The ray backend's spec block (``backend: {type: ray, ...}``)."""

from __future__ import annotations

import re
from typing import Annotated

from pydantic import Field, field_validator

from zoo import BackendParams

#: what ``address`` takes: 'auto', or a cluster's GCS address, possibly through the Ray Client (ray://)
ADDRESS = re.compile(r"auto|(ray://)?[A-Za-z0-9.\-\[\]:]+:[0-9]{1,5}")


class RayParams(BackendParams):
    """Trials run as Ray tasks: on a private Ray started on this machine, or on a cluster this machine joins."""

    address: str | None = Field(
        default=None, description="absent: start a private Ray on this machine with workers x torch_threads CPUs "
        "(stopped at the end); 'auto': join the cluster this machine is part of (ray start); 'ray://HOST:PORT': join "
        "through the Ray Client")
    workers: int = Field(default=1, ge=1, le=100_000, description="trial groups run at once")
    torch_threads: int = Field(default=1, ge=1, le=256, description="torch intra-op threads, and the CPUs each trial group asks Ray for")
    max_retries: int = Field(default=3, ge=0, le=100, description="restarts of a trial group from its last checkpoint when its worker dies")
    scratch: str | None = Field(default=None, description="folder on each worker node where trials train before their files "
                                "are sent back (default: the system's temp folder)")
    resources: dict[str, Annotated[float, Field(gt=0)]] = Field(
        default_factory=dict, description="custom Ray resources each trial group asks for besides its CPUs, e.g. "
        "{trainer: 1} for the nodes started with ray start --resources '{\"trainer\": 4}'")

    @field_validator("address")
    @classmethod
    def _address(cls, value: str | None) -> str | None:
        if value is not None and not ADDRESS.fullmatch(value):
            raise ValueError("expected 'auto', 'ray://HOST:PORT' or HOST:PORT (a cluster's GCS address), "
                             "or no address to start a private Ray on this machine")
        return value
