"""Kinds of entries that plugins declare with ``register_kinds``, each with a registration hook of its own."""

from __future__ import annotations

import logging
import types
from dataclasses import dataclass
from importlib import metadata

from zoo import KindEntry, hookimpl, hookspec
from zoo.entries import Entry
from zoo.registry import Registry


@dataclass(frozen=True)
class WidgetEntry(Entry):
    size: int = 0


class WidgetSpecs:
    @staticmethod
    @hookspec
    def register_widgets(register):
        """Contribute widgets."""


WIDGETS = KindEntry(name="widget", hookspecs=WidgetSpecs, hook="register_widgets", entry=WidgetEntry, label="widget")


def declarer(kind: KindEntry = WIDGETS):
    def register_kinds(register):
        register(kind)

    def register_widgets(register):
        register(WidgetEntry(name="own", size=1))

    return types.SimpleNamespace(register_kinds=hookimpl(register_kinds), register_widgets=hookimpl(register_widgets))


def contributor(name: str):
    def register_widgets(register):
        register(WidgetEntry(name=name, size=2))

    return types.SimpleNamespace(register_widgets=hookimpl(register_widgets))


def test_plugins_loaded_before_and_after_the_declaring_one_contribute(caplog):
    registry = Registry()
    assert registry.add("early", contributor("from-early"))
    assert registry.add("widgets", declarer())
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("late", contributor("from-late"))
    assert sorted(registry.entries["widget"]) == ["from-early", "from-late", "own"]
    assert registry.get("widget", "from-early").plugin == "early"
    assert registry.kinds["widget"] == ("register_widgets", WidgetEntry, "widget")
    assert "register_widgets" in registry.known_hooks()
    assert registry.plugins["late"].hooks == ("register_widgets",)
    assert caplog.text == ""  # the late plugin's hook is a known one: no 'is no zoo hook' warning


def test_a_plugin_may_declare_a_kind_it_does_not_implement_itself(caplog):
    # the tune plugin declares search spaces, which only other plugins (sb3) contribute
    def register_kinds(register):
        register(WIDGETS)

    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("widgets", types.SimpleNamespace(register_kinds=hookimpl(register_kinds)))
        assert registry.add("late", contributor("from-late"))
    assert "widgets" not in registry.failures
    assert sorted(registry.entries["widget"]) == ["from-late"]
    assert caplog.text == ""


def test_a_kind_whose_hookspecs_lack_its_hook_is_refused(caplog):
    registry = Registry()
    broken = KindEntry(name="widget", hookspecs=types.SimpleNamespace(), hook="register_widgets", entry=WidgetEntry,
                       label="widget")
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert registry.add("widgets", declarer(broken))
    assert "widget" not in registry.kinds
    assert "entry kind 'widget' refused: its hookspecs must hold a function 'register_widgets' marked with @zoo.hookspec" in caplog.text


def test_a_kind_may_not_take_a_kernel_kinds_name(caplog):
    registry = Registry()
    clash = KindEntry(name="env", hookspecs=WidgetSpecs, hook="register_widgets", entry=WidgetEntry, label="widget")
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("widgets", declarer(clash))
    assert "entry kind 'env' refused: a kind of that name exists" in caplog.text
    assert registry.kinds["env"][2] == "environment"


def test_a_declaring_plugin_whose_hook_raises_leaves_no_kind_behind(caplog):
    registry = Registry()
    plugin = declarer()

    def register_widgets(register):
        raise RuntimeError("broken widget")

    plugin.register_widgets = hookimpl(register_widgets)
    with caplog.at_level(logging.WARNING, logger="zoo"):
        assert not registry.add("widgets", plugin)
    assert "widget" not in registry.kinds and "register_widgets" not in registry.known_hooks()
    assert "RuntimeError: broken widget" in registry.failures["widgets"]


class _EntryPoint:
    def __init__(self, name, target):
        self.name, self.value, self.dist, self._target = name, f"fake:{name}", None, target

    def load(self):
        return self._target


def test_a_declarer_may_implement_the_hook_of_a_kind_a_later_declarer_declares(monkeypatch, caplog):
    # as the GOHR plugin (loaded first by name) registers its feature map through the SARSA plugin's hook
    def register_gadgets(register):
        """Contribute gadgets."""

    specs = types.SimpleNamespace(register_gadgets=hookspec(register_gadgets))

    def register_kinds(register):
        register(KindEntry(name="gadget", hookspecs=specs, hook="register_gadgets", entry=Entry, label="gadget"))

    def register_widgit(register):  # misspelled: still warned about, once every declarer is in
        raise AssertionError("never called")

    early = types.SimpleNamespace(register_kinds=hookimpl(register_kinds), register_widgit=register_widgit,
                                  register_widgets=contributor("from-early").register_widgets)
    points = [_EntryPoint("aa-early", early), _EntryPoint("zz-widgets", declarer())]
    monkeypatch.setattr(metadata, "entry_points", lambda group: points if group == "zoo" else [])
    monkeypatch.delenv("ZOO_PLUGINS", raising=False)
    monkeypatch.delenv("ZOO_DISABLE_PLUGINS", raising=False)
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.load_entry_points()
    assert registry.get("widget", "from-early").plugin == "aa-early"
    assert registry.plugins["aa-early"].hooks == ("register_kinds", "register_widgets")
    assert caplog.messages == ["plugin 'aa-early': function 'register_widgit' looks like a hook but is no zoo hook "
                               "(did you mean 'register_widgets'?), so the zoo never calls it"]
