"""The zoo plugin of the ray backend: its entry, with the ``--address`` option it adds to ``zoo train`` and the others."""

from __future__ import annotations

from zoo import BackendEntry, BackendOption, hookimpl

from .params import RayParams

#: what a trial on this backend may use: it runs in a Ray worker of the run's Ray, so it may start Ray actors
RAY_ACTORS = "ray-actors"


def _trials(params, registry, batched):
    from .backend import RayTrials  # Ray is imported only when a run uses it

    return RayTrials(params, batched)


def _check(params):
    from .backend import check

    check(params)


@hookimpl
def register_backends(register):
    register(BackendEntry(
        name="ray", params=RayParams, factory=_trials, check=_check, capabilities=frozenset({RAY_ACTORS}),
        options=(BackendOption("--address", "address", metavar="ADDR",
                               help="The Ray cluster to join: auto, ray://HOST:PORT or HOST:PORT "
                                    "(default: start a private Ray here)"),),
        description="Ray tasks, on a private Ray of this machine or on a cluster (needs the 'ray' extra)"))
