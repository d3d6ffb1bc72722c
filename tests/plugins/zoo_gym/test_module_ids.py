"""``env: {type: gym, id: "module:Id"}``: the module is imported first, as gymnasium.make does, so that a plain
gymnasium env needs no plugin."""

from __future__ import annotations

import textwrap
import uuid

import pytest

from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec_text

SPEC = """\
env: {{type: gym, id: "{id}"}}
agent: {{type: ppo}}
budget: {{steps: 64}}
"""


@pytest.fixture
def module(tmp_path, monkeypatch) -> str:
    """A module (not imported yet) whose import registers the gymnasium id 'ModuleWalk-v0'."""
    name = f"walk_envs_{uuid.uuid4().hex[:8]}"
    (tmp_path / f"{name}.py").write_text(textwrap.dedent("""\
        import gymnasium
        from gymnasium.envs.classic_control import CartPoleEnv

        gymnasium.register(id="ModuleWalk-v0", entry_point=CartPoleEnv, max_episode_steps=50)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield name
    import gymnasium

    gymnasium.registry.pop("ModuleWalk-v0", None)


def test_an_id_a_module_registers_is_accepted_and_builds(module):
    spec = load_spec_text(SPEC.format(id=f"{module}:ModuleWalk-v0"), get_registry())
    assert spec.env.id == f"{module}:ModuleWalk-v0"
    env = get_registry().get("env", "gym").factory(spec.env, 0)
    assert env.spec.id == "ModuleWalk-v0" and env.spec.max_episode_steps == 50
    env.close()


def test_without_the_module_the_id_is_unknown(module):
    with pytest.raises(SpecError, match="'ModuleWalk-v0' is not a registered gymnasium id"):
        load_spec_text(SPEC.format(id="ModuleWalk-v0"), get_registry())


def test_a_module_that_cannot_be_imported_is_named():
    with pytest.raises(SpecError, match=r"'no_such_envs:Walk-v0': cannot import the module 'no_such_envs' "
                                        r"\(ModuleNotFoundError: No module named 'no_such_envs'\)"):
        load_spec_text(SPEC.format(id="no_such_envs:Walk-v0"), get_registry())


def test_an_id_the_module_does_not_register_says_so(module):
    with pytest.raises(SpecError, match=f"'Walk-v9' is not a registered gymnasium id after importing '{module}'"):
        load_spec_text(SPEC.format(id=f"{module}:Walk-v9"), get_registry())
