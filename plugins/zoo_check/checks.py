"""The contract checks of ``zoo check``: what the zoo relies on from each kind of entry, with tiny budgets.

Envs go through gymnasium's ``check_env`` and the zoo's own checks, render modes included
(:mod:`zoo_check.envs`); agents train a few hundred steps three times, and meta-controllers keep the
contract of :mod:`zoo.behavior` and drive GDI-I3 and LBC (:mod:`zoo_check.training`); every rule file
of a rule set parses; a reporter's envs are registered; a search space loads; a command answers ``--help``. An entry is built
with the params it declares as its ``example``. Each check is one :class:`~zoo_check.results.Result`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from zoo_report.reporters import ReporterEntry

from zoo import Entry, Registry, ZooError

from .envs import check_env_entry
from .results import Result, run
from .training import check_agent_entry, check_meta_controller_entry


def run_checks(target: str, registry: Registry) -> Iterator[Result]:
    """Every check of `target`: a plugin (entry-point, distribution or top-level package name) or one entry."""
    plugin, entries = _targets(target, registry)
    if plugin is not None and not entries and not _command_hooks(plugin, registry):
        yield Result("SKIP", f"plugin {plugin}", "contract", "it registers no entries and no commands")
    for kind, entry in entries:
        subject = f"{registry.kinds[kind][2]} {entry.plugin}:{entry.name}"
        checker = CHECKERS.get(kind)
        if checker is None:
            yield Result("SKIP", subject, "contract", f"the zoo has no checks for {registry.kinds[kind][2]}s")
            continue
        yield from checker(subject, entry, registry, [e for e in registry.entries["env"].values() if e.plugin == entry.plugin])
    if plugin is not None:
        yield from check_commands(plugin, registry)


def _targets(target: str, registry: Registry) -> tuple[str | None, list[tuple[str, Entry]]]:
    """The plugin `target` names and its entries, or (None, [the one entry it names])."""
    for name, info in registry.plugins.items():
        module = getattr(registry.manager.get_plugin(name), "__name__", "") or ""
        if target in (name, info.distribution, module.partition(".")[0]):
            return name, [(kind, entry) for kind in registry.kinds for _, entry in sorted(registry.entries[kind].items())
                          if entry.plugin == name and kind != "kind"]
    found = [(kind, registry.entries[kind][target]) for kind in registry.kinds
             if kind != "kind" and target in registry.entries[kind]]
    if not found:
        raise ZooError(f"no plugin or entry named '{target}'; plugins: {', '.join(sorted(registry.plugins))}")
    return None, found


# -- rule sets, reporters, commands ------------------------------------------------------------------

def check_rule_set_entry(subject: str, entry: Any, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    def parses() -> str:
        from zoo_gohr.engine.parser import load_rules

        files = sorted(Path(entry.path).rglob("*.txt"))
        assert files, f"{entry.path} holds no rule file (*.txt)"
        for path in files:
            try:
                load_rules(path)
            except Exception as exc:
                raise AssertionError(f"{path}: {' '.join(str(exc).split())}") from None
        return f"{len(files)} file{'' if len(files) == 1 else 's'}"

    yield run(subject, "every rule file parses", parses)


def check_reporter_entry(subject: str, entry: ReporterEntry, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    def envs() -> str:
        assert entry.envs, "it names no env whose runs it reports on"
        unknown = [env for env in entry.envs if env not in registry.entries["env"]]
        assert not unknown, f"it reports on {', '.join(unknown)}, which no loaded plugin registers"
        assert callable(entry.report), "its report is not callable"
        assert entry.compare is None or callable(entry.compare), "its compare is not callable"
        return ", ".join(entry.envs)

    yield run(subject, "reports on registered envs", envs)


def _command_hooks(plugin: str, registry: Registry) -> list[Callable[..., Any]]:
    owner = registry.manager.get_plugin(plugin)
    return [impl.function for impl in registry.manager.hook.register_commands.get_hookimpls() if impl.plugin is owner]


def check_commands(plugin: str, registry: Registry) -> Iterator[Result]:
    import typer
    from typer.testing import CliRunner

    hooks = _command_hooks(plugin, registry)
    if not hooks:
        return
    app = typer.Typer()
    app.command("zoo-check-placeholder", hidden=True)(lambda: None)  # typer runs a lone command without its name
    for hook in hooks:
        hook(cli=app)
    names = [command.name or command.callback.__name__.replace("_", "-") for command in app.registered_commands
             if not command.hidden] + [group.name for group in app.registered_groups]
    for name in names:
        def helps(name: str = name) -> str:
            result = CliRunner().invoke(app, [name, "--help"])
            assert result.exit_code == 0, f"--help exits {result.exit_code}: {' '.join(result.output.split())[:200]}"
            return "--help works"

        yield run(f"command {plugin}:{name}", "registered", helps)


def check_search_space_entry(subject: str, entry: Any, registry: Registry, own_envs: list[Entry]) -> Iterator[Result]:
    def loads() -> str:
        from zoo_tune.tune import registered_space

        space = registered_space(f"{entry.plugin}:{entry.name}", registry)
        assert space, f"{entry.path} holds no distribution"
        return f"{len(space)} value{'' if len(space) == 1 else 's'}"

    yield run(subject, "its distributions load", loads)


CHECKERS: dict[str, Callable[..., Iterator[Result]]] = {
    "env": check_env_entry,
    "agent": check_agent_entry,
    "meta_controller": check_meta_controller_entry,
    "rule_set": check_rule_set_entry,
    "reporter": check_reporter_entry,
    "search_space": check_search_space_entry,
}
