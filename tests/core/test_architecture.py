"""The architecture contract (``[tool.importlinter]`` in pyproject.toml): plugins use only the published API
``zoo``, the kernel imports no plugin, and the kernel's modules import one another without circles."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
LINT = "import sys; from importlinter.cli import lint_imports_command; sys.exit(lint_imports_command())"


def _lint_imports(cwd: Path, *pythonpath: Path, config: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if pythonpath:  # ahead of the editable install, so that these are the packages analysed
        env["PYTHONPATH"] = os.pathsep.join([*map(str, pythonpath), *filter(None, [env.get("PYTHONPATH")])])
    return subprocess.run([sys.executable, "-c", LINT, "--no-cache", "--no-logo", *([str(config)] if config else [])],
                          cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _contract(config: dict, contract_id: str) -> dict:
    return next(c for c in config["contracts"] if c["id"] == contract_id)


def test_the_source_tree_keeps_every_contract():
    result = _lint_imports(ROOT)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 3 kept, 0 broken." in result.stdout


def test_every_plugin_package_is_under_the_contract():
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]
    plugins = {p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").exists()}
    assert set(config["root_packages"]) == plugins | {"zoo"}
    assert set(_contract(config, "kernel-imports-no-plugin")["forbidden_modules"]) == plugins
    assert "ignore_imports" not in _contract(config, "kernel-acyclic")  # no circle is let through


def test_each_contract_breaks_on_the_import_it_forbids(tmp_path):
    """A copy of the kernel and the plugins, with one forbidden import per contract, breaks all three."""
    python_files = shutil.ignore_patterns("__pycache__", "*.md", "*.yaml", "*.csv", "*.html", "*.js", "*.css")
    shutil.copytree(ROOT / "zoo", tmp_path / "zoo", ignore=python_files)
    for plugin in (ROOT / "plugins").iterdir():
        if (plugin / "__init__.py").exists():
            shutil.copytree(plugin, tmp_path / plugin.name, ignore=python_files)
    shutil.copy(ROOT / "pyproject.toml", tmp_path)

    def add_line(module: str, line: str) -> None:
        path = tmp_path / module
        path.write_text(path.read_text() + f"\n{line}\n")

    add_line("zoo_report/commands.py", "from zoo.store import RunFolder  # noqa")  # a private kernel module
    add_line("zoo/seeding.py", "import zoo_gym  # noqa")  # a plugin, from the kernel
    add_line("zoo/errors.py", "from zoo import store  # noqa")  # store imports errors: a circle

    result = _lint_imports(tmp_path, tmp_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert "Contracts: 0 kept, 3 broken." in result.stdout
    assert "zoo_report.commands -> zoo.store" in result.stdout
    assert "zoo.seeding -> zoo_gym" in result.stdout


def test_the_test_suites_third_party_plugins_use_only_the_published_api(tmp_path):
    """The example plugin, the hostile one and the subprocess backend are written as an outside author would."""
    tests = ROOT / "tests"
    backend = tmp_path / "packages" / "zoo_subprocess_backend"  # a one-module plugin, as the package lint-imports reads
    backend.mkdir(parents=True)
    shutil.copy(tests / "thirdparty_backend" / "zoo_subprocess_backend.py", backend / "__init__.py")
    config = tmp_path / ".importlinter"
    config.write_text("[importlinter]\nroot_packages =\n    zoo\n    zoo_example\n    zoo_hostile\n"
                      "    zoo_subprocess_backend\n\n[importlinter:contract:published-api]\n"
                      "name = Third-party plugins import only zoo\ntype = protected\n"
                      "protected_modules = zoo.*\nallowed_importers = zoo\n")
    result = _lint_imports(tmp_path, tests / "thirdparty_plugin" / "src", tests / "thirdparty_hostile" / "src",
                           backend.parent, config=config)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Contracts: 1 kept, 0 broken." in result.stdout
