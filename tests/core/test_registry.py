"""The registry: isolation of broken plugins and bad entries, built-ins first, hook linting, env vars, lookups."""

from __future__ import annotations

import dataclasses
import logging
import types
from collections.abc import Callable
from importlib import metadata

import pytest
from pydantic import Field

from zoo import AgentEntry, DocumentEntry, EnvEntry, Params, hookimpl
from zoo.errors import ZooError
from zoo.registry import CORE_DISTRIBUTION, Registry


def plugin(**hooks) -> types.SimpleNamespace:
    return types.SimpleNamespace(**{name: hookimpl(fn) for name, fn in hooks.items()})


def env_plugin(*names):
    def register_envs(register):
        for name in names:
            register(EnvEntry(name=name, params=Params, factory=lambda p, s: None))

    return plugin(register_envs=register_envs)


def test_entries_are_registered_with_their_plugin():
    registry = Registry()
    assert registry.add("mine", env_plugin("chain", "grid"), version="1.2")
    assert registry.names("env") == ["chain", "grid"]
    assert registry.get("env", "grid").plugin == "mine"
    assert registry.plugins["mine"].hooks == ("register_envs",)
    assert registry.plugins["mine"].version == "1.2"


def test_unknown_name_suggests_the_closest():
    registry = Registry()
    registry.add("mine", env_plugin("chain", "grid"))
    with pytest.raises(ZooError, match=r"unknown environment 'chian' \(did you mean 'chain'\?\); installed: chain, grid"):
        registry.get("env", "chian")


def test_a_plugin_failing_to_register_is_reported_and_the_rest_works(caplog):
    def broken(register):
        raise RuntimeError("boom")

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert not registry.add("bad", plugin(register_envs=broken))
    assert registry.add("good", env_plugin("chain"))
    line = broken.__code__.co_firstlineno + 1
    assert f"plugin 'bad' failed while registering ({__file__}:{line}): RuntimeError: boom" in caplog.text
    assert registry.names("env") == ["chain"]
    assert "bad" not in registry.plugins and "bad" in registry.failures


def test_a_hook_with_a_wrong_signature_is_rejected(caplog):
    def register_agents(register, extra):
        pass

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert not registry.add("odd", plugin(register_agents=register_agents))
    assert "plugin 'odd' is not a valid plugin" in caplog.text


def test_registering_the_wrong_entry_type_is_an_error(caplog):
    def register_agents(register):
        register(EnvEntry(name="oops", params=Params))

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("confused", plugin(register_agents=register_agents))
    assert "register_agents must register AgentEntry objects, got EnvEntry" in caplog.text
    assert registry.names("agent") == [] and registry.names("env") == []


class _FakeEntryPoint:
    def __init__(self, name, target):
        self.name, self.value, self.dist, self._target = name, f"fake:{name}", None, target

    def load(self):
        if isinstance(self._target, Exception):
            raise self._target
        return self._target

    RAISES_AT = load.__code__.co_firstlineno + 2


@pytest.fixture
def fake_entry_points(monkeypatch):
    points = [
        _FakeEntryPoint("alpha", env_plugin("a-env")),
        _FakeEntryPoint("beta", env_plugin("b-env")),
        _FakeEntryPoint("broken", ImportError("No module named 'missing_dependency'")),
    ]
    monkeypatch.setattr(metadata, "entry_points", lambda group: points if group == "zoo" else [])
    return points


def test_entry_points_load_and_a_broken_import_is_named(fake_entry_points, monkeypatch, caplog):
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert sorted(registry.plugins) == ["alpha", "beta", "catalog", "core"]  # the essential plugins are always in
    assert f"plugin 'broken' failed to import fake:broken ({__file__}:{_FakeEntryPoint.RAISES_AT}): " \
           "ImportError: No module named 'missing_dependency'" in caplog.text
    with pytest.raises(ZooError, match="plugins that failed to load: broken"):
        registry.get("env", "c-env")


def test_zoo_plugins_restricts(fake_entry_points, monkeypatch):
    monkeypatch.setenv("ZOO_PLUGINS", "beta")
    registry = Registry()
    registry.load_entry_points()
    assert list(registry.plugins) == ["core", "catalog", "beta"] and not registry.failures  # the essential ones too


def test_zoo_disable_plugins_blocks(fake_entry_points, monkeypatch):
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "broken, alpha")
    registry = Registry()
    registry.load_entry_points()
    assert list(registry.plugins) == ["core", "catalog", "beta"] and not registry.failures  # the essential ones too


def test_builtins_load_through_the_entry_point_group():
    from zoo.registry import get_registry

    registry = get_registry()
    assert {"gym", "sb3"} <= set(registry.plugins)
    names = {ep.name for ep in metadata.entry_points(group="zoo")}
    assert {"gym", "sb3"} <= names
    assert {"ppo", "dqn", "a2c"} <= set(registry.names("agent"))


# --- entries are checked as they are registered ---------------------------------------------

@dataclasses.dataclass
class DataclassParams:
    lr: float = 0.1


class BadDefaultParams(Params):
    lr: float = Field(default=2.0, gt=0, le=1)


class CallableParams(Params):
    schedule: Callable[[float], float] = abs


class TypeFieldParams(Params):
    type: str = "mine"


class RequiredParams(Params):
    path: str
    repeats: int = Field(default=3, ge=1)


def agent_plugin(*entries: tuple[str, type]):
    def register_agents(register):
        for name, params in entries:
            register(AgentEntry(name=name, params=params, factory=lambda params, context: None))

    return plugin(register_agents=register_agents)


@pytest.mark.parametrize("params, reason", [
    (DataclassParams, "params must be a pydantic model class (derive it from zoo.Params), got dataclass DataclassParams"),
    (BadDefaultParams, "the default of 'lr' is invalid: Input should be less than or equal to 1"),
    (CallableParams, "params have no JSON Schema (field 'schedule' of type Callable)"),
    (TypeFieldParams, "params declare the field 'type', which the zoo reserves for the entry's name"),
])
def test_a_bad_entry_is_refused_by_name_and_the_plugins_others_load(params, reason, caplog):
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("mixed", agent_plugin(("bad", params), ("good", Params), ("needs-a-path", RequiredParams)))
    assert registry.names("agent") == ["good", "needs-a-path"]
    (record,) = caplog.records
    assert record.getMessage().startswith(f"plugin 'mixed': agent 'bad' refused: {reason}")
    assert "\n" not in record.getMessage()
    assert "mixed" in registry.plugins and not registry.failures


def test_entries_without_a_callable_factory_or_a_document_marker_are_refused(caplog):
    def register_envs(register):
        register(EnvEntry(name="no-factory", params=Params))

    def register_documents(register):
        register(DocumentEntry(name="everything", validate=lambda path, registry, build: "ok"))
        register(DocumentEntry(name="board", marker=("board",), validate=lambda path, registry, build: "ok"))

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("careless", plugin(register_envs=register_envs, register_documents=register_documents))
    assert registry.names("env") == [] and registry.names("document") == ["board"]
    assert [r.getMessage().split(";")[0] for r in caplog.records] == [
        "plugin 'careless': environment 'no-factory' refused: its factory must be callable, got NoneType",
        "plugin 'careless': document kind 'everything' refused: its marker must name the top-level keys that identify "
        "its files (without any, every file would match)",
    ]


def test_every_builtin_entry_passes_the_checks():
    from zoo.entry_checks import entry_problem
    from zoo.registry import get_registry

    registry = get_registry()
    problems = {(kind, name): entry_problem(entry) for kind, entries in registry.entries.items()
                for name, entry in entries.items()}
    assert len(problems) > 30 and {key: p for key, p in problems.items() if p} == {}


def test_misspelled_and_unmarked_hooks_are_named_with_a_suggestion(caplog):
    def register_agent(register):  # marked, but no hook has this name
        raise AssertionError("never called")

    def register_envs(register):  # a hook's name, but not marked
        raise AssertionError("never called")

    def register_metacontrollers(register):  # neither
        raise AssertionError("never called")

    def make_corridor(params, seed):  # an ordinary function: no warning
        return None

    odd = types.SimpleNamespace(register_agent=hookimpl(register_agent), register_envs=register_envs,
                                register_metacontrollers=register_metacontrollers, make_corridor=make_corridor)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("odd", odd)
    assert [r.getMessage() for r in caplog.records] == [
        "plugin 'odd': function 'register_agent' is marked with @zoo.hookimpl but is no zoo hook "
        "(did you mean 'register_agents'?), so the zoo never calls it",
        "plugin 'odd': function 'register_envs' is not marked with @zoo.hookimpl, so the zoo never calls it",
        "plugin 'odd': function 'register_metacontrollers' looks like a hook but is no zoo hook "
        "(did you mean 'register_meta_controllers'?), so the zoo never calls it",
    ]
    assert registry.plugins["odd"].hooks == ()


def test_a_module_plugins_imported_functions_are_not_linted(caplog):
    module = types.ModuleType("zoo_tidy")
    module.register_envs = hookimpl(lambda register: None)
    module.register_envs.__module__ = "zoo_tidy"
    module.register = print  # imported from elsewhere: not the plugin's own function
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("tidy", module)
    assert caplog.records == []


# --- load order, clashes and the environment variables --------------------------------------

class _Dist:
    def __init__(self, name):
        self.name, self.version = name, "1.0"


def test_builtins_load_first_and_keep_their_names(monkeypatch, caplog):
    late = _FakeEntryPoint("zz-builtin", env_plugin("chain"))
    late.dist = _Dist(CORE_DISTRIBUTION)
    early = _FakeEntryPoint("aa-thirdparty", env_plugin("chain", "grid"))
    early.dist = _Dist("zoo-hijack")
    monkeypatch.setattr(metadata, "entry_points", lambda group: [early, late] if group == "zoo" else [])
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert list(registry.plugins) == ["core", "catalog", "zz-builtin", "aa-thirdparty"]
    assert registry.get("env", "chain").plugin == "zz-builtin" and registry.get("env", "grid").plugin == "aa-thirdparty"
    assert registry.get("env", "aa-thirdparty:chain").plugin == "aa-thirdparty"
    assert [r.getMessage() for r in caplog.records] == [
        "plugin 'aa-thirdparty' registers environment 'chain', already registered by built-in plugin 'zz-builtin'; "
        "it answers to 'aa-thirdparty:chain' only"
    ]


@pytest.mark.parametrize("variable", ["ZOO_PLUGINS", "ZOO_DISABLE_PLUGINS"])
def test_unknown_names_in_the_environment_variables_are_reported(variable, fake_entry_points, monkeypatch, caplog):
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    monkeypatch.setenv(variable, "beta,alpah")
    with caplog.at_level(logging.WARNING, logger="zoo"):
        Registry().load_entry_points()
    assert f"{variable} names 'alpah', which is no installed plugin (did you mean 'alpha'?); " \
           "installed: alpha, beta, broken, catalog, core" in caplog.text
    assert "'beta'" not in caplog.text


def test_the_essential_plugins_load_whatever_the_environment_variables_say(fake_entry_points, monkeypatch, caplog):
    monkeypatch.setenv("ZOO_PLUGINS", "beta")
    monkeypatch.setenv("ZOO_DISABLE_PLUGINS", "catalog")
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert list(registry.plugins) == ["core", "catalog", "beta"]
    assert "local" in registry.entries["backend"] and registry.plugins["catalog"].hooks == ("register_commands",)
    assert caplog.messages == ["ZOO_DISABLE_PLUGINS names 'catalog', an essential plugin, which every registry loads"]


def test_an_import_failure_names_the_plugins_file_and_line_and_logs_its_traceback(tmp_path, monkeypatch, caplog):
    (tmp_path / "zoo_fails.py").write_text("import os\n\nraise RuntimeError('no licence key')\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    point = metadata.EntryPoint(name="fails", value="zoo_fails", group="zoo")
    monkeypatch.setattr(metadata, "entry_points", lambda group: [point] if group == "zoo" else [])
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.DEBUG, logger="zoo"):
        registry.load_entry_points()
    warning, debug = caplog.records
    assert warning.getMessage() == (f"plugin 'fails' failed to import zoo_fails ({tmp_path / 'zoo_fails.py'}:3): "
                                    "RuntimeError: no licence key; the other plugins still work")
    assert debug.levelno == logging.DEBUG and debug.getMessage().startswith("Traceback (most recent call last):")
    assert "raise RuntimeError('no licence key')" in debug.getMessage()
