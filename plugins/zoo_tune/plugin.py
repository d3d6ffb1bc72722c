"""The zoo plugin of hyperparameter search: the ``zoo tune`` command, the tuning document kind and the kind
``search_space`` (named spaces other plugins contribute, :mod:`zoo_tune.search_spaces`)."""

from __future__ import annotations

from zoo import DocumentEntry, hookimpl

from .search_spaces import SEARCH_SPACES


def _validate_tuning(path, registry, build: bool) -> str:
    from .tune import check_tuning

    return check_tuning(path, registry, build)


@hookimpl
def register_documents(register):
    register(DocumentEntry(name="tuning", marker=("spec",), validate=_validate_tuning,
                           description="a run spec, a search space and Optuna's settings (zoo tune)"))


@hookimpl
def register_kinds(register):
    register(SEARCH_SPACES)


@hookimpl
def register_commands(cli):
    from .commands import tune

    cli.command("tune")(tune)
