"""Which block of a spec failed to build: the env, agent and meta-controller factories, blamed by name.

An agent factory builds the env and the meta-controller through its TrialContext, so an exception
that leaves it may come from any of the three. :func:`blame_context` wraps the context's env and
meta-controller factories so that what they raise carries its block; :func:`build_error` turns
any exception into one line naming the block, its entry and the plugin that registered it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from .agent import TrialContext
from .entries import Entry
from .errors import ZooError
from .registry import Registry


class _BlockFailed(Exception):
    """An exception of a block's own factory, on its way out through the agent's factory."""

    def __init__(self, block: str, entry: Entry, cause: Exception):
        super().__init__(f"{type(cause).__name__}: {cause}")
        self.block, self.entry, self.cause = block, entry, cause


def _blamed(block: str, entry: Entry, factory: Callable[..., Any]) -> Callable[..., Any]:
    def build(*args):
        try:
            return factory(*args)
        except ZooError:
            raise  # its message is meant for the user as it is
        except Exception as exc:
            raise _BlockFailed(block, entry, exc) from exc

    return build


def blame_context(context: TrialContext, spec: Any, registry: Registry) -> TrialContext:
    """`context` with env and meta-controller factories whose exceptions name their block."""
    env = registry.get("env", spec.env.type)
    changes: dict[str, Any] = {"make_env": _blamed("env", env, context.make_env)}
    if context.make_vector_env is not None:
        changes["make_vector_env"] = _blamed("env", env, context.make_vector_env)
    if context.meta_controller is not None:
        meta = registry.get("meta_controller", spec.meta_controller.type)
        changes["meta_controller"] = _blamed("meta_controller", meta, context.meta_controller)
    return replace(context, **changes)


def build_error(exc: Exception, agent: Entry) -> ZooError:
    """One line for an exception out of `agent`'s factory: the block that failed, its entry and plugin."""
    failed: BaseException | None = exc
    while failed is not None and not isinstance(failed, _BlockFailed):
        failed = failed.__cause__ or failed.__context__
    block, entry, cause = ("agent", agent, exc) if failed is None else (failed.block, failed.entry, failed.cause)
    if isinstance(cause, ZooError):  # the plugin's own message (a missing extra, say) says what to do
        return cause
    return ZooError(f"the spec is valid but its {block} '{entry.name}' (plugin '{entry.plugin}') could not be built: "
                    f"{type(cause).__name__}: {cause}")
