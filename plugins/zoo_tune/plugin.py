"""The zoo plugin of hyperparameter search: the ``zoo tune`` command and the tuning document kind."""

from __future__ import annotations

from zoo import DocumentEntry, hookimpl


def _validate_tuning(path, registry, build: bool) -> str:
    from .tune import check_tuning

    return check_tuning(path, registry, build)


@hookimpl
def register_documents(register):
    register(DocumentEntry(name="tuning", marker=("spec", "space"), validate=_validate_tuning,
                           description="a run spec, a search space and Optuna's settings (zoo tune)"))


@hookimpl
def register_commands(cli):
    from .commands import tune

    cli.command("tune")(tune)
