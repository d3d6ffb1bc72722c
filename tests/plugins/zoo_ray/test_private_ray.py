"""Without an address the ray backend starts a private Ray: another Ray running on the machine (here one started
with ``ray start --head`` and exported as RAY_ADDRESS, as a shell of its user would) is neither joined nor touched,
by ``zoo train --backend ray`` nor by ``zoo resume`` of an interrupted Ray run."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest
from conftest import ZooCli
from ray_runs import LOCAL, RAY, numbers, train, write_spec

from zoo.store import RunFolder

pytestmark = pytest.mark.slow  # starts two Rays

RAY_CLI = Path(sys.executable).parent / "ray"


#: the other Ray runs without token authentication, and `ray status` asks it the same way: Ray 2.5x turns token
#: authentication on for `ray start` once ~/.ray/auth_token exists (an earlier Ray made it) while its CLI clients
#: stay off, so without this the check below would depend on what ran on the machine before
NO_AUTH = {**os.environ, "RAY_AUTH_MODE": "disabled"}


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _processes_of(temp_dir: str) -> list[int]:
    """The ids of the processes whose command line names `temp_dir` (the other Ray's own)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                if temp_dir.encode() in (entry / "cmdline").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _clients(temp_dir: str) -> list[str]:
    """The drivers and workers that have connected to the other Ray: each leaves a log in its session."""
    logs = Path(temp_dir) / "session_latest" / "logs"
    return sorted(path.name for path in logs.glob("python-core-*"))


@pytest.fixture
def other_ray():
    """A Ray head of one CPU in a temp folder of its own: (its address, its temp folder); its processes are killed after."""
    temp_dir = tempfile.mkdtemp(prefix="zoo-other-ray-")
    address = f"127.0.0.1:{_free_port()}"
    started = subprocess.run([str(RAY_CLI if RAY_CLI.exists() else "ray"), "start", "--head", f"--port={address.split(':')[1]}",
                              f"--temp-dir={temp_dir}", "--num-cpus=1", "--include-dashboard=false",
                              "--disable-usage-stats"], capture_output=True, text=True, timeout=180, env=NO_AUTH)
    try:
        assert started.returncode == 0, started.stderr
        yield address, temp_dir
    finally:
        for pid in _processes_of(temp_dir):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _alive(address: str) -> bool:
    status = subprocess.run([str(RAY_CLI if RAY_CLI.exists() else "ray"), "status", f"--address={address}"],
                            capture_output=True, text=True, timeout=120, env=NO_AUTH)
    return status.returncode == 0


def test_train_and_resume_start_a_private_ray_and_leave_another_untouched(other_ray, tmp_path):
    address, temp_dir = other_ray
    scratch = tempfile.mkdtemp(prefix="zt-")  # the runs' temp folder: short, for the private Ray's socket paths
    zoo = ZooCli(RAY_ADDRESS=address, TMPDIR=scratch)  # RAY_ADDRESS: what a plain ray.init() would join
    before = _clients(temp_dir)

    finished = zoo.run("train", write_spec(tmp_path, "whole", LOCAL), "--backend", "ray", "--no-progress",
                       "--run-dir", tmp_path / "runs" / "whole", timeout=300)
    assert finished.returncode == 0, finished.stderr

    reference, _ = train(tmp_path, "reference", LOCAL, episodes=300, every=6)
    run = tmp_path / "runs" / "stopped"
    driver = zoo.popen("train", write_spec(tmp_path, "stopped", RAY, episodes=300, every=6), "--no-progress", "--run-dir", run)
    deadline = time.time() + 240
    while time.time() < deadline and not any((run / "trials").glob("*/checkpoints/episode-*")):
        time.sleep(0.05)
    driver.send_signal(signal.SIGINT)
    _, err = driver.communicate(timeout=240)
    assert driver.returncode == 130, err
    resumed = zoo.run("resume", run, "--no-progress", timeout=300)
    assert resumed.returncode == 0, resumed.stderr
    assert RunFolder(run).manifest()["resumed"].get("0")
    assert numbers(run, checkpoints=False) == numbers(reference.path, checkpoints=False)

    assert _alive(address), "the other Ray was stopped"
    assert _clients(temp_dir) == before, "a driver or worker of the runs connected to the other Ray"
    assert not list(Path(scratch).iterdir()), "a private Ray's temp folder was left behind"
    Path(scratch).rmdir()
