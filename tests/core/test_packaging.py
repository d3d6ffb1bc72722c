"""Packaging: every plugin folder is installed and registered, and the hooks page is current."""

from __future__ import annotations

import importlib.util
import sys
import tomllib
from importlib import metadata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_every_plugin_folder_is_a_listed_package_with_an_entry_point():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    folders = {p.name for p in (ROOT / "plugins").iterdir() if (p / "__init__.py").exists()}
    setuptools = project["tool"]["setuptools"]
    assert folders <= set(setuptools["packages"])
    assert {name: setuptools["package-dir"][name] for name in folders} == {name: f"plugins/{name}" for name in folders}
    points = dict(project["project"]["entry-points"]["zoo"])
    assert points.pop("core") == "zoo.core_plugin"  # the kernel's own plugin, the local backend
    assert folders == {value.split(".")[0] for value in points.values()}
    assert setuptools["package-dir"]["zoo_rules"] == "rules"


def test_every_subpackage_is_listed_so_wheels_carry_it():
    """setuptools installs only the packages it is given: a sub-package missing from the list is missing
    from every wheel (an editable install hides that)."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    setuptools = project["tool"]["setuptools"]
    listed = set(setuptools["packages"])
    for name in listed:
        root = ROOT / setuptools["package-dir"].get(name, name.replace(".", "/"))
        for init in root.rglob("__init__.py"):
            dotted = ".".join([name, *init.parent.relative_to(root).parts])
            assert dotted in listed, f"{dotted} is not in [tool.setuptools] packages"


def test_installed_entry_points_match_pyproject():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    installed = {ep.name: ep.value for ep in metadata.entry_points(group="zoo") if ep.dist and ep.dist.name == "zoo-rl"}
    assert installed == project["project"]["entry-points"]["zoo"]


def test_torch_is_pinned_to_the_cpu_build():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "torch==2.13.0" in project["project"]["dependencies"]
    assert "torch==2.13.0+cpu" in (ROOT / "constraints.txt").read_text()


def test_hooks_page_is_generated_from_hookspecs():
    spec = importlib.util.spec_from_file_location("gen_hooks_doc", ROOT / "scripts" / "gen_hooks_doc.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_hooks_doc"] = module
    spec.loader.exec_module(module)
    assert (ROOT / "docs" / "hooks.md").read_text() == module.render(), "run scripts/gen_hooks_doc.py"


def test_loading_every_plugin_imports_no_heavy_library():
    """`zoo --help` and `zoo plugins` stay fast: plugins import torch, scipy and matplotlib lazily."""
    import subprocess

    code = ("import sys; from zoo.registry import get_registry; r = get_registry(); "
            "heavy = sorted({'torch', 'scipy', 'matplotlib', 'stable_baselines3'} & set(sys.modules)); "
            "print(len(r.plugins), r.failures, heavy)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split(" ", 1)
    assert int(out[0]) >= 10
    assert out[1].strip() == "{} []"


def _package_folders() -> dict[str, Path]:
    """Every installed package (subpackages included) by dotted name, from pyproject's package-dir."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    found = {}
    for top, folder in project["tool"]["setuptools"]["package-dir"].items():
        for init in sorted((ROOT / folder).rglob("__init__.py")):
            relative = init.parent.relative_to(ROOT / folder).parts
            found[".".join((top, *relative))] = init.parent
    return found


def test_every_subpackage_is_listed():
    """setuptools installs only the listed packages: a subpackage missing from the list is missing from the wheel."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert set(_package_folders()) <= set(project["tool"]["setuptools"]["packages"])


def _imported_modules(path: Path, module: str) -> set[str]:
    """Absolute names of the modules a file imports (``from . import x`` counts as ``package.x``)."""
    import ast

    package = module.rsplit(".", 1)[0] if path.name != "__init__.py" else module
    names = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[:len(package.split(".")) - node.level + 1]
                base = ".".join(anchor + ([base] if base else []))
            names.add(base)
            names |= {f"{base}.{alias.name}" for alias in node.names}
    return names


def test_no_module_imports_its_own_plugin_module():
    """A plugin's entry-point module sits on top: the modules below it never import it, so no import circle
    runs through the module the registry loads."""
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())
    offenders = []
    for entry in project["project"]["entry-points"]["zoo"].values():
        top = entry.split(".")[0]
        folder = ROOT / project["tool"]["setuptools"]["package-dir"][top]
        for path in sorted(folder.rglob("*.py")):
            parts = path.relative_to(folder).with_suffix("").parts
            module = ".".join((top, *parts)).removesuffix(".__init__")
            if module != entry and entry in _imported_modules(path, module):
                offenders.append(str(path.relative_to(ROOT)))
    assert offenders == []
