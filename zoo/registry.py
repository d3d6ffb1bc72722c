"""The plugin registry: loads plugins through entry points and looks entries up by name.

Built-in plugins and third-party ones are loaded the same way, from the ``zoo`` entry-point
group. Each plugin is loaded in isolation: one that fails to import or to register is reported
by name as a warning and the others work.

Environment variables:

* ``ZOO_PLUGINS``: comma-separated names; only these plugins load.
* ``ZOO_DISABLE_PLUGINS``: comma-separated names; these plugins do not load.

The essential plugins are in every registry, whatever ZOO_PLUGINS says: the kernel's own, ``core`` (the
``local`` backend, `zoo.core_plugin`), and ``catalog`` (``zoo list``, ``describe``, ``plugins``, ``schema``, ``runs``).
Built-in plugins (those of the zoo's own distribution) load first, then the others by name. Every
entry is checked as it is registered (:mod:`zoo.entry_checks`): a bad one is refused with a warning
and the plugin's others load.

Names have owners: every entry answers to its qualified name ``PLUGIN:NAME`` too. A built-in's bare
name cannot be taken over (a third party's entry of that name answers to its qualified name only),
and a bare name two third-party plugins register belongs to neither: specs must qualify it.
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
    BackendEntry,
    DocumentEntry,
    Entry,
    EnvEntry,
    KindEntry,
    MetaControllerEntry,
    TrackerEntry,
)
from .entry_checks import entry_problem, hook_lint
from .errors import ZooError, did_you_mean

log = logging.getLogger("zoo")

ENTRY_POINT_GROUP = "zoo"
#: the distribution whose entry points are the built-in plugins
CORE_DISTRIBUTION = "zoo-rl"

#: the kernel's kinds: kind name -> (registration hook, entry class, what a user calls it); plugins add
#: their own with ``register_kinds`` (:attr:`Registry.kinds` holds both)
KINDS: dict[str, tuple[str, type[Entry], str]] = {
    "env": ("register_envs", EnvEntry, "environment"),
    "agent": ("register_agents", AgentEntry, "agent"),
    "meta_controller": ("register_meta_controllers", MetaControllerEntry, "meta-controller"),
    "document": ("register_documents", DocumentEntry, "document kind"),
    "kind": ("register_kinds", KindEntry, "entry kind"),
    "backend": ("register_backends", BackendEntry, "backend"),
    "tracker": ("register_trackers", TrackerEntry, "tracker"),
}

#: the zoo distribution's plugins that every registry loads first, whatever ZOO_PLUGINS says: the kernel's own
#: (the local backend) and the catalogue (the commands that list what is installed)
ESSENTIAL_PLUGINS = ("core", "catalog")


@dataclass(frozen=True)
class PluginInfo:
    """What is known of one loaded plugin."""

    name: str
    version: str
    distribution: str
    hooks: tuple[str, ...]
    builtin: bool = False


class EntryTable(dict):
    """The entries of one kind, keyed by the name a spec gives them: the bare name, or ``PLUGIN:NAME`` for an
    entry whose bare name is a built-in's or clashes. Lookups (``[]``, ``in``, ``get``) also accept the
    qualified name ``PLUGIN:NAME`` of any entry."""

    def resolve(self, name: Any) -> str | None:
        """The key of the entry `name` (a key, or any entry's qualified name); None if there is none."""
        if not isinstance(name, str):
            return None
        if dict.__contains__(self, name):
            return name
        plugin, _, bare = name.partition(":")
        return next((key for key, entry in self.items() if entry.plugin == plugin and entry.name == bare), None)

    def __getitem__(self, name: Any) -> Entry:
        key = self.resolve(name)
        if key is None:
            raise KeyError(name)
        return dict.__getitem__(self, key)

    def __contains__(self, name: Any) -> bool:
        return self.resolve(name) is not None

    def get(self, name: Any, default: Any = None) -> Any:
        key = self.resolve(name)
        return default if key is None else dict.__getitem__(self, key)


def qualified(entry: Entry) -> str:
    """``PLUGIN:NAME``, the name of `entry` that no other plugin can take."""
    return f"{entry.plugin}:{entry.name}"


@dataclass(eq=False)
class Registry:
    """Loaded plugins and the entries they registered, by kind and name."""

    manager: pluggy.PluginManager = field(default_factory=lambda: _new_manager())
    kinds: dict[str, tuple[str, type[Entry], str]] = field(default_factory=lambda: dict(KINDS))
    entries: dict[str, EntryTable] = field(default_factory=lambda: {kind: EntryTable() for kind in KINDS})
    plugins: dict[str, PluginInfo] = field(default_factory=dict)
    failures: dict[str, str] = field(default_factory=dict)
    #: kind -> bare name -> the third-party plugins that each register it (none of them owns it)
    clashes: dict[str, dict[str, list[str]]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        for ep in _essential_entry_points():
            self.add(ep.name, ep.load(), version=ep.dist.version, distribution=CORE_DISTRIBUTION, builtin=True)

    # -- loading ---------------------------------------------------------------------------
    def load_entry_points(self) -> None:
        """Load every plugin of the entry-point group that the environment variables allow, built-ins first."""
        only = _names(os.environ.get("ZOO_PLUGINS"))
        blocked = _names(os.environ.get("ZOO_DISABLE_PLUGINS"))
        points = sorted(metadata.entry_points(group=ENTRY_POINT_GROUP), key=lambda e: (not _builtin(e), e.name))
        _report_unknown_names(only, blocked, sorted({ep.name for ep in points} | set(ESSENTIAL_PLUGINS)))
        for name in sorted((blocked or set()) & set(ESSENTIAL_PLUGINS)):
            log.warning("ZOO_DISABLE_PLUGINS names '%s', an essential plugin, which every registry loads", name)
        loaded = []
        for ep in points:
            if ep.name in self.plugins or (only is not None and ep.name not in only) or ep.name in (blocked or ()):
                continue
            try:
                loaded.append((ep, ep.load()))
            except Exception as exc:  # a broken plugin must not break the others
                self._fail(ep.name, f"failed to import {ep.value}{_where(exc)}: {type(exc).__name__}: {exc}", exc)
        # among the third-party plugins, those that declare kinds come first, so that their hooks are known
        # (and linted as such) when the others register; the declarers are linted once all are in, as one may
        # implement the hook of a kind another declares (GOHR's feature map is of the SARSA plugin's kind)
        loaded.sort(key=lambda pair: (not _builtin(pair[0]), not hasattr(pair[1], "register_kinds")))
        declarers = []
        for ep, module in loaded:
            dist, declares = ep.dist, hasattr(module, "register_kinds")
            if self.add(ep.name, module, version=dist.version if dist else "", distribution=dist.name if dist else "",
                        builtin=_builtin(ep), lint=not declares) and declares:
                declarers.append((ep.name, module))
        for name, module in declarers:
            self._lint(name, module)

    def add(self, name: str, plugin: Any, *, version: str = "", distribution: str = "", builtin: bool = False,
            lint: bool = True) -> bool:
        """Register one plugin object (a module or any object with hook implementations).

        The kinds the plugin declares (``register_kinds``) are added first, so that its own entries
        of those kinds are collected too. Entries that fail their checks are refused one by one; the
        plugin fails as a whole only when it cannot be registered with pluggy or one of its hooks raises.
        With `lint` (the default) the functions that look like hooks but that the zoo will never call are
        warned about; without, the caller lints the plugin later.
        """
        try:
            self.manager.register(plugin, name=name)
        except Exception as exc:
            self._fail(name, f"is not a valid plugin: {type(exc).__name__}: {exc}", exc)
            return False
        try:
            declared = self._collect(plugin, {"kind": KINDS["kind"]}).get("kind", [])
            own = {kind.name: (kind.hook, kind.entry, kind.label) for kind in declared
                   if kind.name not in self.kinds and entry_problem(kind) is None}
            collected = self._collect(plugin, {k: v for k, v in self.kinds.items() if k != "kind"} | own)
        except Exception as exc:
            self.manager.unregister(plugin)
            self._fail(name, f"failed while registering{_where(exc)}: {type(exc).__name__}: {exc}", exc)
            return False
        for kind in declared:
            self._add_entry(name, "kind", kind, builtin)
        if lint:
            self._lint(name, plugin)
        for kind, items in collected.items():
            for entry in items if kind in self.kinds else ():  # the entries of a kind refused are dropped with it
                self._add_entry(name, kind, entry, builtin)
        known = set(self.known_hooks())
        hooks = tuple(sorted(caller.name for caller in self.manager.get_hookcallers(plugin) or () if caller.name in known))
        self.plugins[name] = PluginInfo(name, version, distribution, hooks, builtin)
        return True

    def _lint(self, name: str, plugin: Any) -> None:
        for warning in hook_lint(plugin, self.known_hooks()):
            log.warning("plugin '%s': %s", name, warning)

    def _collect(self, plugin: Any, kinds: dict[str, tuple[str, type[Entry], str]]) -> dict[str, list[Entry]]:
        """What `plugin` registers through the hooks of `kinds`, by kind (unchecked)."""
        collected: dict[str, list[Entry]] = {}
        for kind, (hook_name, entry_type, _) in kinds.items():
            for function in _implementations(self.manager, plugin, hook_name):
                items = collected.setdefault(kind, [])
                function(register=_collector(items, entry_type, hook_name))
        return collected

    def _add_kind(self, plugin: str, kind: KindEntry) -> str | None:
        """Add the hook of a declared kind; then let the plugins loaded before contribute. Why not, if it cannot be."""
        if kind.name in self.kinds:
            return "a kind of that name exists"
        try:
            self.manager.add_hookspecs(kind.hookspecs)
        except Exception as exc:  # pluggy checks the implementations already registered against the new spec
            return f"its hook does not fit the plugins already loaded: {type(exc).__name__}: {exc}"
        self.kinds[kind.name] = (kind.hook, kind.entry, kind.label)
        self.entries[kind.name] = EntryTable()
        for other in list(self.plugins):
            module = self.manager.get_plugin(other)
            try:
                found = self._collect(module, {kind.name: self.kinds[kind.name]})
            except Exception as exc:
                log.warning("plugin '%s' failed while registering %ss%s: %s: %s; they are left out",
                            other, kind.label, _where(exc), type(exc).__name__, exc)
                continue
            for entry in found.get(kind.name, []):
                self._add_entry(other, kind.name, entry, self.plugins[other].builtin)
            if _implementations(self.manager, module, kind.hook):  # zoo plugins and run.json list the hook as its
                info = self.plugins[other]
                self.plugins[other] = replace(info, hooks=tuple(sorted({*info.hooks, kind.hook})))
        return None

    def _add_entry(self, plugin: str, kind: str, entry: Entry, builtin: bool) -> None:
        """Keep `entry` unless it fails its checks; under its bare name unless a built-in owns that name or another
        third-party plugin registers it too (then under ``PLUGIN:NAME``, and the clash is recorded)."""
        label = self.kinds[kind][2]
        problem = entry_problem(entry)
        if problem is None and kind == "kind" and entry.name not in self.entries[kind]:
            problem = self._add_kind(plugin, entry)
        if problem is not None:
            log.warning("plugin '%s': %s '%s' refused: %s; the plugin's other entries still load",
                        plugin, label, entry.name, problem)
            return
        table, entry = self.entries[kind], replace(entry, plugin=plugin)
        known = dict.get(table, entry.name)
        if dict.__contains__(table, qualified(entry)) or (known is not None and known.plugin == plugin):
            log.warning("plugin '%s' registers %s '%s' twice; the second is ignored", plugin, label, entry.name)
            return
        rivals = self.clashes.setdefault(kind, {}).get(entry.name)
        if known is None and rivals is None:
            table[entry.name] = entry
        elif kind == "kind":  # a kind's name is global: the first declaration keeps it
            log.warning("plugin '%s' declares %s '%s', already declared by plugin '%s'; ignored",
                        plugin, label, entry.name, known.plugin if known else rivals[0])
        elif rivals is not None:
            rivals.append(plugin)
            table[qualified(entry)] = entry
            self._warn_clash(kind, entry.name)
        elif self._is_builtin(known.plugin) or not builtin:
            if self._is_builtin(known.plugin):
                table[qualified(entry)] = entry
                log.warning("plugin '%s' registers %s '%s', already registered by built-in plugin '%s'; "
                            "it answers to '%s' only", plugin, label, entry.name, known.plugin, qualified(entry))
            else:  # two third parties: neither keeps the bare name
                del table[entry.name]
                table[qualified(known)] = known
                table[qualified(entry)] = entry
                self.clashes[kind][entry.name] = [known.plugin, plugin]
                self._warn_clash(kind, entry.name)
        else:  # a built-in registered after a third party takes its name back
            del table[entry.name]
            table[qualified(known)] = known
            table[entry.name] = entry
            log.warning("plugin '%s' registers %s '%s', which built-in plugin '%s' registers too; "
                        "it answers to '%s' only", known.plugin, label, entry.name, plugin, qualified(known))

    def _is_builtin(self, plugin: str) -> bool:
        info = self.plugins.get(plugin)
        return info is not None and info.builtin

    def _warn_clash(self, kind: str, name: str) -> None:
        log.warning("%s; specs must name one of them", self.clash_message(kind, name))

    def clash_message(self, kind: str, name: str) -> str:
        """One line on the bare `name` that several third-party plugins register: who, and what to write instead."""
        plugins = self.clashes[kind][name]
        owners = ", ".join(f"'{p}'" for p in plugins[:-1]) + f" and '{plugins[-1]}'"
        choices = " or ".join(f"'{p}:{name}'" for p in plugins)
        return f"{self.kinds[kind][2]} '{name}' is registered by plugins {owners}; write {choices}"

    def _fail(self, name: str, message: str, exc: BaseException | None = None) -> None:
        self.failures[name] = message
        log.warning("plugin '%s' %s; the other plugins still work", name, message)
        if exc is not None:  # shown with --debug
            log.debug("".join(traceback.format_exception(exc)).rstrip())

    # -- lookup ------------------------------------------------------------------------------
    def known_hooks(self) -> list[str]:
        """The names of every hook: the kernel's (:mod:`zoo.hookspecs`) and those of the kinds plugins declared."""
        return sorted(name for name, caller in vars(self.manager.hook).items()
                      if isinstance(caller, pluggy.HookCaller) and caller.has_spec())

    def names(self, kind: str) -> list[str]:
        return sorted(self.entries[kind])

    def get(self, kind: str, name: str) -> Entry:
        """The entry of `kind` called `name`; a ZooError with a did-you-mean otherwise."""
        if kind not in self.kinds:
            raise ZooError(f"unknown kind '{kind}'{did_you_mean(kind, list(self.kinds))}; valid: {', '.join(self.kinds)}")
        try:
            return self.entries[kind][name]
        except KeyError:
            raise ZooError(self.unknown_message(kind, name)) from None

    def unknown_message(self, kind: str, name: str) -> str:
        if name in self.clashes.get(kind, {}):
            return self.clash_message(kind, name)
        label = self.kinds[kind][2]
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


def _essential_entry_points() -> list[metadata.EntryPoint]:
    """The entry points of the essential plugins in the zoo's distribution. They load like built-in plugins, so
    that the registry imports none of the modules (the local workers, the trial loop) that use the registry."""
    try:
        points = metadata.distribution(CORE_DISTRIBUTION).entry_points.select(group=ENTRY_POINT_GROUP)
    except metadata.PackageNotFoundError:
        points = ()
    found = {ep.name: ep for ep in points if ep.name in ESSENTIAL_PLUGINS}
    missing = [name for name in ESSENTIAL_PLUGINS if name not in found]
    if missing:
        raise ZooError(f"the zoo's essential plugins {', '.join(missing)} are not installed (entry points of "
                       f"{CORE_DISTRIBUTION} in the '{ENTRY_POINT_GROUP}' group); reinstall zoo-rl")
    return [found[name] for name in ESSENTIAL_PLUGINS]


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
    """The functions with which `plugin` implements `hook_name` (pluggy honours `specname`); none when no plugin
    implements the hook yet (a declared kind whose spec is added after this call has no caller before it)."""
    caller = getattr(manager.hook, hook_name, None)
    return [impl.function for impl in caller.get_hookimpls() if impl.plugin is plugin] if caller is not None else []


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
