"""Backends are plugins: a third-party backend (tests/thirdparty_backend, each trial group in a subprocess of its
own) trains, resumes and runs a GOHR board through the registry; its name and its option are checked like the
built-in ones; and the kernel imports no backend of a plugin's (Ray)."""

from __future__ import annotations

import inspect
import json
import logging
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import typer
import yaml
from conftest import ZooCli
from ray_runs import LOCAL, numbers, train, write_spec

from zoo import BackendEntry, BackendOption, BackendParams, NoParams, hookimpl, options
from zoo.registry import Registry
from zoo.store import RunFolder

ROOT = Path(__file__).parents[2]
PLUGIN = Path(__file__).parents[1] / "thirdparty_backend"
BACKEND = "{type: subprocess}"


@pytest.fixture(scope="module")
def zoo_cli(tmp_path_factory) -> ZooCli:
    """The ``zoo`` command with the test backend installed: its folder on PYTHONPATH and a distribution naming it."""
    site = tmp_path_factory.mktemp("subprocess-backend")
    info = site / "zoo_subprocess_backend-0.1.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: zoo-subprocess-backend\nVersion: 0.1\n")
    (info / "entry_points.txt").write_text("[zoo]\nsubprocess = zoo_subprocess_backend\n")
    return ZooCli(site, PLUGIN)


def _pids(log: Path) -> list[tuple[int, str]]:
    return [(int(pid), trials) for pid, trials in (line.split() for line in log.read_text().splitlines())]


@pytest.mark.slow  # about 5 s: trial groups trained in subprocesses of their own
def test_a_third_party_backend_trains_each_group_in_a_subprocess_with_the_local_numbers(zoo_cli, tmp_path):
    reference, _ = train(tmp_path, "reference", LOCAL, trials=2)
    spec, run, log = write_spec(tmp_path, "sub", BACKEND, trials=2), tmp_path / "runs" / "sub", tmp_path / "groups.log"
    result = zoo_cli.run("train", spec, "--run-dir", run, "--no-progress", ZOO_SUBPROCESS_LOG=str(log))
    assert result.returncode == 0, result.stderr
    groups = _pids(log)
    assert sorted(trials for _, trials in groups) == ["0", "1"] and len({pid for pid, _ in groups}) == 2
    assert numbers(run) == numbers(reference.path)
    assert RunFolder(run).manifest()["plugins"]["subprocess"]["distribution"] == "zoo-subprocess-backend"


@pytest.mark.slow  # about 12 s: a run interrupted and resumed through subprocesses
def test_an_interrupted_run_resumes_through_the_backend_and_ends_as_an_uninterrupted_one(zoo_cli, tmp_path):
    reference, _ = train(tmp_path, "reference", LOCAL, episodes=300, every=6)
    spec, run = write_spec(tmp_path, "stopped", BACKEND, episodes=300, every=6), tmp_path / "runs" / "stopped"
    driver = zoo_cli.popen("train", spec, "--run-dir", run, "--no-progress")
    checkpoints, deadline = run / "trials", time.time() + 120
    while time.time() < deadline and not any(checkpoints.glob("*/checkpoints/episode-*")):
        time.sleep(0.05)
    driver.send_signal(signal.SIGINT)
    _, err = driver.communicate(timeout=120)
    assert driver.returncode == 130, err
    folder = RunFolder(run)
    assert folder.manifest()["status"] == "interrupted" and not (folder.trial_dir(0) / "result.json").exists()
    result = zoo_cli.run("resume", run, "--no-progress")
    assert result.returncode == 0, result.stderr
    assert folder.manifest()["status"] == "finished" and folder.manifest()["resumed"].get("0")
    assert numbers(run, checkpoints=False) == numbers(reference.path, checkpoints=False)


@pytest.mark.slow  # about 10 s: a 2-cell board, each trial group in a subprocess
def test_a_gohr_board_runs_its_cells_through_the_backend(zoo_cli, tmp_path):
    board = {
        "name": "tiny", "env": {"type": "gohr", "horizon": 30}, "rules": ["paper/clockwise", "paper/color_match"],
        "budget": {"episodes": 3}, "trials": 2, "backend": {"type": "subprocess"},
        "logging": {"tensorboard": False, "progress": False},
        "agents": {"random": {"agent": {"type": "random-legal"}}},
        "metrics": {"bootstraps": 50, "ranking_bootstraps": 5},
    }
    path, log = tmp_path / "board.yaml", tmp_path / "groups.log"
    path.write_text(yaml.safe_dump(board, sort_keys=False))
    result = zoo_cli.run("leaderboard", path, "--runs-dir", tmp_path / "runs", "--no-progress", ZOO_SUBPROCESS_LOG=str(log))
    assert result.returncode == 0, result.stderr
    runs = [json.loads(manifest.read_text()) for manifest in (tmp_path / "runs").glob("*/run.json")]
    assert len(runs) == 2 and {run["status"] for run in runs} == {"finished"}
    assert len(_pids(log)) == 4  # two cells of two trials, each trial a group in a subprocess of its own
    for spec in (tmp_path / "runs").glob("*/spec.yaml"):
        assert yaml.safe_load(spec.read_text())["backend"]["type"] == "subprocess"


@pytest.mark.slow  # about 3.5 s: a run through a plugin's backend, from the CLI
def test_backend_names_and_options_come_from_the_registry(zoo_cli, tmp_path):
    listing = zoo_cli.run("list", "backend")
    assert re.search(r"^  subprocess +each trial group in a subprocess .*\[subprocess\]$", listing.stdout, re.M), listing.stdout
    spec = write_spec(tmp_path, "opts", LOCAL)
    typo = zoo_cli.run("train", spec, "--backend", "subproces")
    assert typo.returncode == 2
    assert typo.stderr.strip() == ("error: --backend: unknown backend 'subproces' (did you mean 'subprocess'?); "
                                   "installed: local, ray, subprocess")
    mixed = zoo_cli.run("train", spec, "--backend", "local", "--group-timeout", "5")
    assert mixed.returncode == 2 and "--group-timeout: an option of another backend than --backend local" in mixed.stderr
    # an option alone picks its backend, and its value meets the backend's own checks
    alone = zoo_cli.run("train", spec, "--group-timeout", "0", "--runs-dir", tmp_path / "runs")
    assert alone.returncode == 2 and "--group-timeout 0" in alone.stderr and "greater than 0" in alone.stderr, alone.stderr
    bad = tmp_path / "bad.yaml"
    bad.write_text(spec.read_text().replace("type: local", "type: slurm"))
    refused = zoo_cli.run("validate", bad)
    assert "Input should be 'local', 'ray' or 'subprocess' (given 'slurm')" in refused.stderr, refused.stderr


def test_the_kernel_neither_imports_nor_names_ray():
    modules = sorted(f"zoo.{path.relative_to(ROOT / 'zoo').with_suffix('').as_posix().replace('/', '.')}"
                     for path in (ROOT / "zoo").rglob("*.py") if path.name != "__init__.py")
    code = f"import sys\nfor name in {modules!r}: __import__(name)\nprint('ray' in sys.modules)"
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=300)
    assert found.stdout.strip() == "False", found.stderr
    named = [f"{path}:{number}" for path in sorted((ROOT / "zoo").rglob("*.py"))
             for number, line in enumerate(path.read_text().splitlines(), 1) if re.search(r"\bray\b", line, re.I)]
    assert named == []


class _Plugin:
    """A plugin object registering the given backend entries."""

    def __init__(self, *entries):
        self.entries = entries

    @hookimpl
    def register_backends(self, register):
        for entry in self.entries:
            register(entry)


class _Params(BackendParams):
    queue: str = "default"


def _trains(params, registry, batched):
    raise AssertionError("not trained here")


@pytest.mark.parametrize(("entry", "problem"), [
    (BackendEntry(name="plain", params=NoParams, factory=_trains), "its params must derive from zoo.BackendParams"),
    (BackendEntry(name="typo", params=_Params, factory=_trains, options=(BackendOption("--queue", "queu"),)),
     "its option --queue sets the field 'queu', which its params lack (did you mean 'queue'?)"),
    (BackendEntry(name="flag", params=_Params, factory=_trains, options=(BackendOption("-q", "queue"),)),
     "its option '-q' is no flag such as '--address'"),
    (BackendEntry(name="caps", params=_Params, factory=_trains, capabilities={"x"}),
     "its capabilities must be a frozenset of strings"),
])
def test_a_backend_that_cannot_work_is_refused_by_name(entry, problem, caplog):
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("mine", _Plugin(entry))
    assert entry.name not in registry.entries["backend"]
    assert f"backend '{entry.name}' refused: {problem}" in caplog.text


def test_the_local_name_is_the_kernels_and_a_taken_flag_is_left_out(monkeypatch, caplog):
    registry = Registry()
    with caplog.at_level(logging.WARNING, logger="zoo"):
        registry.add("mine", _Plugin(
            BackendEntry(name="local", params=_Params, factory=_trains),
            BackendEntry(name="queued", params=_Params, factory=_trains,
                         options=(BackendOption("--seed", "queue"), BackendOption("--queue", "queue")))))
    assert registry.entries["backend"]["local"].plugin == "core"
    assert "already registered by built-in plugin 'core'" in caplog.text
    monkeypatch.setattr(options, "get_registry", lambda: registry)

    def run(seed: int | None = typer.Option(None, "--seed"), *, backend: options.BackendChoice):
        return backend

    command = options.backend_options(run)
    flags = [p.default.param_decls[0] for p in inspect.signature(command).parameters.values()]
    assert flags == ["--seed", "--backend", "--queue"]
    assert "backend 'queued': its option --seed is taken" in caplog.text
    chosen = command(seed=None, backend=None, backend_option_0="fast")
    assert chosen == options.BackendChoice("queued", (("--queue", "queue", "fast"),))
