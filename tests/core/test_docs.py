"""docs/plugins.md works as written.

Its ``python`` and ``toml`` blocks each start with ``# file: PATH``: together they are a package,
which is pip-installed into a private folder. Its ``console`` blocks' ``zoo`` commands are run
against that installation, its YAML specs are validated, and the test file it teaches is executed.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import shlex
import sys
import tomllib
from pathlib import Path

import pytest

from zoo.metrics import read_metrics
from zoo.registry import Registry
from zoo.spec import load_spec_text

DOC = Path(__file__).parents[2] / "docs" / "plugins.md"
FENCE = re.compile(r"^```(\w+)\n(.*?)^```$", re.MULTILINE | re.DOTALL)
FILE = re.compile(r"\A# file: (\S+)\n")


def blocks(language: str) -> list[str]:
    return [code for lang, code in FENCE.findall(DOC.read_text(encoding="utf-8")) if lang == language]


@pytest.fixture(scope="module")
def package(tmp_path_factory) -> Path:
    """The doc's files, written out where they say."""
    root = tmp_path_factory.mktemp("doc-package")
    for language, code in FENCE.findall(DOC.read_text(encoding="utf-8")):
        match = FILE.match(code)
        if language in ("python", "toml"):
            assert match, f"a {language} block of {DOC.name} does not say which file it is:\n{code}"
        if match:
            path = root / match[1]
            assert not path.exists(), f"{match[1]} appears twice in {DOC.name}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(code, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def site(package, pip_install, tmp_path_factory) -> Path:
    return pip_install(package, tmp_path_factory.mktemp("doc-site") / "site")


@pytest.fixture
def importable(site, monkeypatch):
    """The doc's package importable in this process for one test."""
    monkeypatch.syspath_prepend(str(site))
    yield site
    for name in [name for name in sys.modules if name == "zoo_bandit" or name.startswith("zoo_bandit.")]:
        del sys.modules[name]


def test_the_layout_and_the_entry_point_match_the_files(package):
    written = {path.relative_to(package).as_posix() for path in package.rglob("*") if path.is_file()}
    layout = {line.split()[0] for line in blocks("text")[0].splitlines() if re.match(r"\s+\S+\.(py|toml)\b", line)}
    assert layout == {name.rsplit("/", 1)[-1] for name in written if not name.endswith(".yaml")}

    pyproject = tomllib.loads((package / "pyproject.toml").read_text())
    (plugin, module), = pyproject["project"]["entry-points"]["zoo"].items()
    assert (plugin, module) == ("bandit", "zoo_bandit.plugin")
    assert f"src/{module.replace('.', '/')}.py" in written


def test_every_hook_entry_type_and_context_field_is_taught():
    import zoo
    from zoo import hookspecs

    text = DOC.read_text(encoding="utf-8")
    hooks = [name for name in dir(hookspecs) if name.startswith("register_")]
    entries = [name for name in zoo.__all__ if name.endswith("Entry")]
    assert hooks and entries
    assert [hook for hook in hooks if f"`{hook}(" not in text] == []
    assert [entry for entry in entries if f"`zoo.{entry}`" not in text] == []
    fields = [field.name for field in dataclasses.fields(zoo.TrialContext)]
    assert [field for field in fields if f"| `{field}" not in text] == []


@pytest.mark.slow  # pip-installs the package the page teaches
def test_the_console_commands_work(package, site, zoo_cli_with):
    zoo = zoo_cli_with(site, ZOO_PLUGINS="bandit,gym,gdi,learner,check")  # the doc's commands need no other plugin
    outputs = {}
    for line in (line[2:] for block in blocks("console") for line in block.splitlines() if line.startswith("$ ")):
        words = shlex.split(line)
        variables = {}
        while "=" in words[0]:
            name, value = words.pop(0).split("=", 1)
            if name != "PYTHONPATH":  # the test supplies its own installation
                variables[name] = value
        if words[0] == "pip":
            continue  # the fixtures installed the package
        assert words[0] == "zoo", line
        result = zoo.run(*words[1:], cwd=package, timeout=300, **variables)
        assert result.returncode == 0, f"{line}\n{result.stderr}"
        assert "plugin 'bandit'" not in result.stderr, f"{line}\n{result.stderr}"
        outputs[line] = result.stdout

    assert "bandit" in outputs["zoo plugins"]
    assert "epsilon-greedy" in outputs["zoo list agent"]
    assert [row.split("\t")[0] for row in outputs["zoo bandit-means --arms 3"].splitlines()] == ["0", "1", "2"]
    assert "ok: bandit.yaml (env bandit, agent epsilon-greedy, 2 trial(s) x 5000 steps)" in outputs["zoo validate bandit.yaml"]
    disabled = json.loads(outputs["ZOO_DISABLE_PLUGINS=bandit zoo plugins --json"])
    assert "bandit" not in {row["name"] for row in disabled["plugins"]}
    assert "bandit" in outputs["ZOO_PLUGINS=bandit,gym zoo list env"]
    enabled = json.loads(outputs["PYTHONPATH=/tmp/zoo-bandit-site zoo plugins --json"])
    assert {"name": "bandit", "distribution": "zoo-bandit", "version": "0.1.0"}.items() <= \
        next(row for row in enabled["plugins"] if row["name"] == "bandit").items()

    run = package / "runs" / "bandit"
    assert json.loads((run / "run.json").read_text())["status"] == "finished"
    for trial in ("000", "001"):
        assert json.loads((run / "trials" / trial / "result.json").read_text())["steps"] == 5000

    assert outputs["zoo validate --build cartpole-gdi-eps.yaml cartpole-ac.yaml"].splitlines() == [
        "ok: cartpole-gdi-eps.yaml (env gym, agent gdi-i3, meta-controller eps-bandit, 1 trial(s) x 3000 steps, built)",
        "ok: cartpole-ac.yaml (env gym, agent boltzmann-ac, 1 trial(s) x 3000 steps, built)",
    ]
    for name, entries, behavior in [("gdi-eps", {"env": "gym", "agent": "gdi", "meta_controller": "bandit"}, "beta1"),
                                    ("ac", {"env": "gym", "agent": "bandit"}, "beta")]:
        run = package / "runs" / name
        assert json.loads((run / "run.json").read_text())["entries"] == entries
        result = json.loads((run / "trials" / "000" / "result.json").read_text())
        assert result["steps"] >= 3000 and len(result["eval_returns"]) == 2
        rows = read_metrics(run / "trials" / "000" / "metrics.jsonl")
        episodes = [row for row in rows if "episode_return" in row]
        assert len(episodes) > 20 and all(f"behavior/{behavior}" in row for row in episodes)
        assert any("learner/loss_pi" in row for row in rows)  # the learner trained


@pytest.mark.slow  # pip-installs the package the page teaches
def test_the_yaml_specs_validate(importable):
    registry = Registry()
    registry.load_entry_points()
    specs = [load_spec_text(text, registry, source=DOC.name) for text in blocks("yaml")]
    blocks_used = {(spec.env.type, spec.agent.type, spec.meta_controller and spec.meta_controller.type, spec.budget.unit)
                   for spec in specs}
    assert blocks_used == {("bandit", "epsilon-greedy", None, "steps"), ("bandit", "epsilon-greedy", None, "episodes"),
                           ("gym", "gdi-i3", "eps-bandit", "steps"), ("gym", "boltzmann-ac", None, "steps")}


@pytest.mark.slow  # pip-installs the package the page teaches
def test_the_tests_it_teaches_pass(package, importable, tmp_path):
    path = package / "tests" / "test_plugin.py"
    namespace = {"__name__": "doc_test_plugin", "__file__": str(path)}
    exec(compile(path.read_text(), str(path), "exec"), namespace)
    tests = {name: function for name, function in namespace.items() if name.startswith("test_") and callable(function)}
    assert tests
    for name, function in tests.items():
        assert list(inspect.signature(function).parameters) == ["tmp_path"], name
        (tmp_path / name).mkdir()
        function(tmp_path / name)
