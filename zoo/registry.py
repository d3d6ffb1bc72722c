"""The plugin registry: loads plugins through entry points and looks entries up by name.

Built-in plugins and third-party ones are loaded the same way, from the ``zoo`` entry-point
group. Each plugin is loaded in isolation: one that fails to import or to register is reported
by name as a warning and the others work.

Environment variables:

* ``ZOO_PLUGINS``: comma-separated names; only these plugins load.
* ``ZOO_DISABLE_PLUGINS``: comma-separated names; these plugins do not load.

Built-in plugins (those of the zoo's own distribution) load first, then the others by name, so a
built-in name cannot be taken over. Every entry is checked as it is registered
(:mod:`zoo.entry_checks`): a bad one is refused with a warning and the plugin's others load.
"""

from __future__ import annotations

import logging
import os
import traceback
from dataclasses import dataclass, field, replace
from importlib import metadata
from typing import Any

import pluggy

from . import hookspecs
from .entries import (
    AgentEntry,
    DocumentEntry,
    Entry,
    EnvEntry,
    FeatureEntry,
    MetaControllerEntry,
    ReporterEntry,
    RuleSetEntry,
    SearchSpaceEntry,
)
from .entry_checks import entry_problem, hook_lint
from .errors import ZooError, did_you_mean

log = logging.getLogger("zoo")

ENTRY_POINT_GROUP = "zoo"
#: the distribution whose entry points are the built-in plugins
CORE_DISTRIBUTION = "zoo-rl"

#: kind name -> (registration hook, entry class, what a user calls it)
KINDS: dict[str, tuple[str, type[Entry], str]] = {
    "env": ("register_envs", EnvEntry, "environment"),
    "agent": ("register_agents", AgentEntry, "agent"),
    "meta_controller": ("register_meta_controllers", MetaControllerEntry, "meta-controller"),
    "rule_set": ("register_rule_sets", RuleSetEntry, "rule set"),
    "feature": ("register_features", FeatureEntry, "feature map"),
    "reporter": ("register_reporters", ReporterEntry, "reporter"),
    "document": ("register_documents", DocumentEntry, "document kind"),
    "search_space": ("register_search_spaces", SearchSpaceEntry, "search space"),
}


@dataclass(frozen=True)
class PluginInfo:
    """What is known of one loaded plugin."""

    name: str
    version: str
    distribution: str
    hooks: tuple[str, ...]
    builtin: bool = False


@dataclass(eq=False)
class Registry:
    """Loaded plugins and the entries they registered, by kind and name."""

    manager: pluggy.PluginManager = field(default_factory=lambda: _new_manager())
    entries: dict[str, dict[str, Entry]] = field(default_factory=lambda: {kind: {} for kind in KINDS})
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)

    # -- loading ---------------------------------------------------------------------------
    def load_entry_points(self) -> None:
        """Load every plugin of the entry-point group that the environment variables allow, built-ins first."""
        only = _names(os.environ.get("ZOO_PLUGINS"))
        blocked = _names(os.environ.get("ZOO_DISABLE_PLUGINS"))
        points = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (not _builtin(e), e.name))
        _report_unknown_names(only, blocked, [ep.name for ep in points])
        for ep in points:
            if ep.name in self.plugins or (only is not None and ep.name not in only) or ep.name in (blocked or ()):
                continue
            dist = ep.dist
            try:
                module = ep.load()
            except Exception as exc:  # a broken plugin must not break the others
                self._fail(ep.name, f"failed to import {ep.value}{_where(exc)}: {type(exc).__name__}: {exc}", exc)
                continue
            self.add(ep.name, module, version=dist.version if dist else "", distribution=dist.name if dist else "",
                     builtin=_builtin(ep))

    def add(self, name: str, plugin: Any, *, version: str = "", distribution: str = "", builtin: bool = False) -> bool:
        """Register one plugin object (a module or any object with hook implementations).

        Entries that fail their checks are refused one by one; the plugin fails as a whole only
        when it cannot be registered with pluggy or one of its hooks raises.
        """
        try:
            self.manager.register(plugin, name=name)
        except Exception as exc:
            self._fail(name, f"is not a valid plugin: {type(exc).__name__}: {exc}", exc)
            return False
        for warning in hook_lint(plugin, list(KNOWN_HOOKS), hookspecs.PROJECT):
            log.warning("plugin '%s': %s", name, warning)
        collected: dict[str, list[Entry]] = {}
        try:
            for kind, (hook_name, entry_type, _) in KINDS.items():
                for function in _implementations(self.manager, plugin, hook_name):
                    items = collected.setdefault(kind, [])
                    function(register=_collector(items, entry_type, hook_name))
        except Exception as exc:
            self.manager.unregister(plugin)
            self._fail(name, f"failed while registering{_where(exc)}: {type(exc).__name__}: {exc}", exc)
            return False
        for kind, items in collected.items():
            for entry in items:
                self._add_entry(name, kind, entry)
        hooks = tuple(sorted(caller.name for caller in self.manager.get_hookcallers(plugin) or ()
                             if caller.name in KNOWN_HOOKS))
        self.plugins[name] = PluginInfo(name, version, distribution, hooks, builtin)
        return True

    def _add_entry(self, plugin: str, kind: str, entry: Entry) -> None:
        """Keep `entry` unless it fails its checks or its name is taken (the first plugin keeps a name)."""
        label = KINDS[kind][2]
        problem = entry_problem(entry)
        if problem is not None:
            log.warning("plugin '%s': %s '%s' refused: %s; the plugin's other entries still load",
                        plugin, label, entry.name, problem)
            return
        known = self.entries[kind].get(entry.name)
        if known is not None:
            owner = self.plugins.get(known.plugin)
            by = f"{'built-in ' if owner is not None and owner.builtin else ''}plugin '{known.plugin}'"
            log.warning("plugin '%s' registers %s '%s', already registered by %s; ignored",
                        plugin, label, entry.name, by)
            return
        self.entries[kind][entry.name] = replace(entry, plugin=plugin)

    def _fail(self, name: str, message: str, exc: BaseException | None = None) -> None:
        self.failures[name] = message
        log.warning("plugin '%s' %s; the other plugins still work", name, message)
        if exc is not None:  # shown with --debug
            log.debug("".join(traceback.format_exception(exc)).rstrip())

    # -- lookup ------------------------------------------------------------------------------
    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def get(self, kind: str, name: str) -> Entry:
        """The entry of `kind` called `name`; a ZooError with a did-you-mean otherwise."""
        try:
            return self.entries[kind][name]
        except KeyError:
            raise ZooError(self.unknown_message(kind, name)) from None

    def unknown_message(self, kind: str, name: str) -> str:
        label = KINDS[kind][2]
        known = self.names(kind)
        listing = ", ".join(known) if known else "none (is the plugin that provides it installed?)"
        message = f"unknown {label} '{name}'{did_you_mean(name, known)}; installed: {listing}"
        if self.failures:
            message += f" (plugins that failed to load: {', '.join(sorted(self.failures))})"
        return message

    def call_commands(self, cli: Any) -> None:
        """Let every plugin add its CLI commands; a failing plugin is reported, not fatal."""
        for name, plugin in self.manager.list_name_plugin():
            try:
                for function in _implementations(self.manager, plugin, "register_commands"):
                    function(cli=cli)
            except Exception as exc:
                self._fail(name, f"failed to add its commands{_where(exc)}: {type(exc).__name__}: {exc}", exc)


def _new_manager() -> pluggy.PluginManager:
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    return manager


#: the names of every hook (the functions of zoo.hookspecs marked as hook specifications)
KNOWN_HOOKS = tuple(sorted(name for name, value in vars(hookspecs).items() if hasattr(value, f"{hookspecs.PROJECT}_spec")))


def _builtin(ep: metadata.EntryPoint) -> bool:
    return ep.dist is not None and ep.dist.name == CORE_DISTRIBUTION


def _where(exc: BaseException) -> str:
    """' (FILE:LINE)' of the innermost frame of `exc` outside Python's import machinery, or of a SyntaxError."""
    if isinstance(exc, SyntaxError) and exc.filename:
        return f" ({exc.filename}:{exc.lineno})"
    frames = [f for f in traceback.extract_tb(exc.__traceback__)
              if not f.filename.startswith("<") and "importlib" not in f.filename]
    return f" ({frames[-1].filename}:{frames[-1].lineno})" if frames else ""


def _report_unknown_names(only: set[str] | None, blocked: set[str] | None, installed: list[str]) -> None:
    for variable, names in (("ZOO_PLUGINS", only), ("ZOO_DISABLE_PLUGINS", blocked)):
        for name in sorted((names or set()) - set(installed)):
            log.warning("%s names '%s', which is no installed plugin%s; installed: %s",
                        variable, name, did_you_mean(name, installed), ", ".join(sorted(installed)))


def _names(value: str | None) -> set[str] | None:
    if value is None:
        return None
    return {part.strip() for part in value.split(",") if part.strip()}


def _implementations(manager: pluggy.PluginManager, plugin: Any, hook_name: str):
    """The functions with which `plugin` implements `hook_name` (pluggy honours `specname`)."""
    caller = getattr(manager.hook, hook_name)
    return [impl.function for impl in caller.get_hookimpls() if impl.plugin is plugin]


def _collector(items: list[Entry], entry_type: type[Entry], hook: str):
    def register(entry: Entry) -> None:
        if not isinstance(entry, entry_type):
            raise TypeError(f"{hook} must register {entry_type.__name__} objects, got {type(entry).__name__}")
        items.append(entry)

    return register


_default: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, loading plugins on first use (worker processes load their own)."""
    global _default
    if _default is None:
        registry = Registry()
        registry.load_entry_points()
        _default = registry
    return _default


def reset_registry() -> None:
    """Forget the process-wide registry so that the next use loads plugins again."""
    global _default
    _default = None
