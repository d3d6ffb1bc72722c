"""Shared fixtures: every test gets its own runs folder (and SB3 log folder) and one torch thread."""

from __future__ import annotations

import logging
import os
import sys

import pytest

# One torch thread per test process. Torch takes its thread count from OMP_NUM_THREADS when it is
# first imported, so setting it here (before any test imports torch) is enough, and the tests that
# never use torch (the bandits', the statistics') do not pay for importing it: a mutation run starts
# one pytest process per mutant. A pytest plugin that imported torch earlier is set by hand below.
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"
if "torch" in sys.modules:
    sys.modules["torch"].set_num_threads(1)


_ZOO_LOGGER = logging.getLogger("zoo")
_PRISTINE_ZOO_LOGGER = (list(_ZOO_LOGGER.handlers), _ZOO_LOGGER.propagate, _ZOO_LOGGER.level)


def _reset_zoo_logger() -> None:
    handlers, propagate, level = _PRISTINE_ZOO_LOGGER
    _ZOO_LOGGER.handlers[:] = handlers
    _ZOO_LOGGER.propagate = propagate
    _ZOO_LOGGER.setLevel(level)


@pytest.fixture(autouse=True)
def _pristine_zoo_logger():
    """zoo.cli.main gives the 'zoo' logger its own stderr handler and stops it propagating, so once any test
    (or a module fixture) called main(), caplog would see no warning of the zoo: every test starts and ends
    with the logger as it was before the first call."""
    _reset_zoo_logger()
    yield
    _reset_zoo_logger()


@pytest.fixture(autouse=True)
def _isolated_runs_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("ZOO_RUNS_DIR", str(tmp_path / "runs"))
    # SB3's own loop (a user's script calling PPO.learn) logs to SB3_LOGDIR, else to a new /tmp/SB3-* folder
    monkeypatch.setenv("SB3_LOGDIR", str(tmp_path / "sb3-logs"))


# --- third-party plugin helpers (test_thirdparty, test_resume, test_docs) --------------------
import shutil  # noqa: E402
import subprocess  # noqa: E402
from pathlib import Path  # noqa: E402

EXAMPLE_PLUGIN_SOURCE = Path(__file__).parent / "thirdparty_plugin"


def pip_install_target(source: Path, target: Path) -> Path:
    """Install the package at `source` into the folder `target` (not into the venv); returns `target`.

    The source is copied first, so that build artifacts land in the copy, not in the repository.
    """
    copy = target.parent / f"{target.name}-source"
    shutil.copytree(source, copy, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__"))
    offline = ["--no-build-isolation", "--no-index"] if _can_build_wheels_offline() else []
    result = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", *offline, "--disable-pip-version-check",
         "--target", str(target), str(copy)],
        capture_output=True, text=True, timeout=300,
    )
    assert result.returncode == 0, f"pip could not install {source}:\n{result.stdout}\n{result.stderr}"
    return target


def _can_build_wheels_offline() -> bool:
    """Whether the venv's setuptools builds wheels by itself (>= 70.1, or with `wheel` installed).

    A fresh Python 3.11 venv has setuptools 65 without `wheel`; pip then builds in isolation.
    """
    from importlib.metadata import PackageNotFoundError, version

    try:
        major, minor = (int(part) for part in version("setuptools").split(".")[:2])
    except (PackageNotFoundError, ValueError):
        return False
    if (major, minor) >= (70, 1):
        return True
    try:
        version("wheel")
        return True
    except PackageNotFoundError:
        return False


class ZooCli:
    """Runs the venv's ``zoo`` console script in subprocesses with extra folders on PYTHONPATH.

    `defaults` are environment variables of every call (e.g. ZOO_PLUGINS); a call may override them.
    """

    executable = Path(sys.executable).parent / "zoo"

    def __init__(self, *paths: Path, **defaults: str):
        self.paths = [str(p) for p in paths]
        self.defaults = defaults

    def env(self, extra_paths=(), **variables: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if k not in ("ZOO_PLUGINS", "ZOO_DISABLE_PLUGINS", "PYTHONPATH")}
        env.update(PYTHONPATH=os.pathsep.join([*map(str, extra_paths), *self.paths]), OMP_NUM_THREADS="1",
                   MKL_NUM_THREADS="1", **self.defaults)
        env.update(variables)
        return env

    def run(self, *args, extra_paths=(), cwd=None, timeout: float = 180, **variables: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(self.executable), *map(str, args)], env=self.env(extra_paths, **variables),
                              cwd=cwd, capture_output=True, text=True, timeout=timeout)

    def popen(self, *args, **kwargs) -> subprocess.Popen:
        return subprocess.Popen([str(self.executable), *map(str, args)], env=self.env(),
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, **kwargs)


@pytest.fixture(scope="session")
def example_plugin_site(tmp_path_factory) -> Path:
    """tests/thirdparty_plugin installed once per session into a private folder."""
    return pip_install_target(EXAMPLE_PLUGIN_SOURCE, tmp_path_factory.mktemp("example-plugin") / "site")


@pytest.fixture(scope="session")
def zoo_cli(example_plugin_site) -> ZooCli:
    """The ``zoo`` command with the example plugin installed."""
    return ZooCli(example_plugin_site)


@pytest.fixture(scope="session")
def pip_install():
    """``pip_install(source, target)``: install a package folder into `target` (see pip_install_target)."""
    return pip_install_target


@pytest.fixture(scope="session")
def zoo_cli_with():
    """``zoo_cli_with(*folders)``: the ``zoo`` command with these folders on PYTHONPATH."""
    return ZooCli
# --- end of third-party plugin helpers ------------------------------------------------------
