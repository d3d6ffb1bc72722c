"""Every command of ``zoo --help`` and its sub-apps, fed missing, empty, malformed and damaged input:
one clear error line and a non-zero exit, never a traceback, nothing half-written.

The commands are found by walking the command tree (plugins' commands included), so a new command
is exercised without being listed here.
"""

from __future__ import annotations

import errno
import inspect
import json
import os
import shutil
import typing
from pathlib import Path

import pytest
import typer
from zoo_testing import run_cli

from zoo.cli import _add_plugin_commands, app, main

SPEC = """\
env: {type: gym, id: CartPole-v1}
agent: {type: ppo, n_steps: 32, batch_size: 32, n_envs: 1, n_epochs: 1}
budget: {steps: 64}
trials: 2
logging: {tensorboard: false, progress: false}
"""


def commands() -> list[tuple[list[str], typing.Any]]:
    """(path, command) of every leaf command, e.g. (['gohr', 'check'], <command>)."""
    _add_plugin_commands()

    def walk(command, path):
        children = getattr(command, "commands", None)
        if children:
            for name, child in sorted(children.items()):
                yield from walk(child, [*path, name])
        else:
            yield path, command

    return list(walk(typer.main.get_command(app), []))


def _takes_path_or_text(hint) -> bool:
    """Whether a parameter annotated `hint` takes a path or a name (Path, str, list or Optional of them)."""
    args = typing.get_args(hint)
    if args:
        return any(_takes_path_or_text(arg) for arg in args if arg is not type(None))
    return hint in (Path, str)


def value_params(command) -> list[tuple[typing.Any, bool]]:
    """(parameter, takes a path or text) for each parameter of `command` that takes a value."""
    hints = typing.get_type_hints(inspect.unwrap(command.callback))
    found = []
    for param in command.params:
        if param.name == "help" or getattr(param, "is_flag", False):
            continue
        found.append((param, _takes_path_or_text(hints.get(param.name))))
    return found


def argv_for(path: list[str], command, value: str, *, overrides=None) -> list[str] | None:
    """Arguments that give `value` to every required path-or-text parameter and `overrides` to those they name
    (None if a required parameter takes something else)."""
    argv = list(path)
    for param, textual in value_params(command):
        given = (overrides or {}).get(param.name)
        if given is None and not param.required:
            continue
        if given is None:
            if not textual:
                return None
            given = value
        argv += [str(given)] if param.param_type_name == "argument" else [param.opts[0], str(given)]
    return argv


def assert_one_clear_line(argv, code: int, out: str, err: str, *, must_fail: bool) -> None:
    where = f"zoo {' '.join(argv)}"
    assert "Traceback" not in out + err, f"{where}: traceback\n{err}"
    assert "internal error" not in err, f"{where}: {err}"
    if must_fail:
        assert code != 0, f"{where}: exit 0 on bad input\n{out}\n{err}"
    if code != 0:
        lines = [line for line in err.splitlines() if line.strip() and not line.startswith("warning: ")]
        assert len(lines) <= 1, f"{where}: {len(lines)} lines of error\n{err}"
        assert lines or out.strip(), f"{where}: exit {code} without a word"
        if lines:
            assert lines[0].startswith("error: "), f"{where}: {lines[0]}"


# -- inputs --------------------------------------------------------------------------------------

def file_inputs(root: Path) -> dict[str, Path]:
    """Bad inputs for any command that reads a file or folder."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "folder").mkdir()
    (root / "empty.yaml").write_bytes(b"")
    (root / "garbage.bin").write_bytes(bytes(range(256)) * 4)
    (root / "malformed.yaml").write_text("env: [unclosed\n  - : :\n\tagent\n")
    (root / "a-list.yaml").write_text("- 1\n- two\n")
    return {
        "missing": root / "missing.yaml",
        "folder": root / "folder",
        "empty": root / "empty.yaml",
        "garbage": root / "garbage.bin",
        "malformed": root / "malformed.yaml",
        "a-list": root / "a-list.yaml",
        "under-a-file": root / "empty.yaml" / "child",
    }


@pytest.fixture(scope="module")
def good_run(tmp_path_factory) -> Path:
    """A finished two-trial run of 64 PPO steps."""
    root = tmp_path_factory.mktemp("good")
    spec = root / "tiny.yaml"
    spec.write_text(SPEC)
    assert main(["train", str(spec), "--run-dir", str(root / "run"), "--no-progress"]) == 0
    return root / "run"


def damage(run: Path, root: Path) -> dict[str, Path]:
    """Copies of a run, each with one thing damaged, marked interrupted so that resume reads them."""

    def copy(name: str) -> Path:
        target = root / name
        shutil.copytree(run, target)
        manifest = json.loads((target / "run.json").read_text())
        (target / "run.json").write_text(json.dumps(manifest | {"status": "interrupted", "id": name}))
        return target

    damaged = {}
    for name, content in {"run-json-list": b"[]", "run-json-null": b"null", "run-json-bytes": bytes(range(256)),
                          "run-json-empty": b""}.items():
        damaged[name] = copy(name)
        (damaged[name] / "run.json").write_bytes(content)
    damaged["run-json-without-seeds"] = copy("run-json-without-seeds")
    manifest = json.loads((damaged["run-json-without-seeds"] / "run.json").read_text())
    del manifest["seeds"]
    (damaged["run-json-without-seeds"] / "run.json").write_text(json.dumps(manifest))
    for name, row in {"metrics-step-not-integer": '{"step": "ten", "episode_return": 1.0}',
                      "metrics-without-step": '{"episode_return": 1.0}',
                      "metrics-return-not-number": '{"step": 5, "episode_return": "high"}',
                      "metrics-row-a-list": "[1, 2]"}.items():
        damaged[name] = copy(name)
        metrics = damaged[name] / "trials" / "000" / "metrics.jsonl"
        lines = metrics.read_text().splitlines()
        metrics.write_text("\n".join(lines[:1] + [row] + lines[1:]) + "\n")
    for name, content in {"result-json-garbage": b"\xff{", "result-json-a-list": b"[1]"}.items():
        damaged[name] = copy(name)
        (damaged[name] / "trials" / "001" / "result.json").write_bytes(content)
    damaged["trial-a-file"] = copy("trial-a-file")
    shutil.rmtree(damaged["trial-a-file"] / "trials" / "001")
    (damaged["trial-a-file"] / "trials" / "001").write_text("not a folder")
    return damaged


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory, good_run) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("bad")
    return file_inputs(root / "files") | damage(good_run, root / "runs")


#: damage that some commands do not read: a report needs no seeds, a resume of finished trials reads no
#: metrics, a comparison reads no results, enjoy plays trial 0 from its checkpoint (no metrics, no results)
MAY_SUCCEED = {
    "result-json-garbage": {"compare", "enjoy"}, "result-json-a-list": {"compare", "enjoy"},
    "run-json-without-seeds": {"report", "compare"},
    # a damaged metrics row is tolerated where metrics are read: skipped with a warning naming its line
    **{name: {"resume", "report", "compare", "enjoy"} for name in (
        "metrics-step-not-integer", "metrics-without-step", "metrics-return-not-number", "metrics-row-a-list")},
    "trial-a-file": {"report", "compare", "enjoy"},
}

ALL_COMMANDS = commands()
INPUT_NAMES = [
    "missing", "folder", "empty", "garbage", "malformed", "a-list", "under-a-file",
    "run-json-list", "run-json-null", "run-json-bytes", "run-json-empty", "run-json-without-seeds",
    "metrics-step-not-integer", "metrics-without-step", "metrics-return-not-number", "metrics-row-a-list",
    "result-json-garbage", "result-json-a-list", "trial-a-file",
]


def test_every_command_is_exercised():
    """The walk finds the core commands and the plugins' sub-apps (so new ones are covered)."""
    names = {" ".join(path) for path, _ in ALL_COMMANDS}
    assert {"validate", "train", "resume", "report", "compare", "schema", "runs", "study"} <= names
    assert {"gohr check", "gohr play", "gohr conformance", "atari split-specs"} <= names


def _reads_input(path: list[str], command) -> bool:
    """Whether a command has required parameters, all of them paths or names (optional ones are exercised below)."""
    argv = argv_for(path, command, "x")
    return argv is not None and argv != path


@pytest.mark.parametrize("path_and_command", [pc for pc in ALL_COMMANDS if _reads_input(*pc)], ids=lambda pc: "-".join(pc[0]))
@pytest.mark.parametrize("kind", INPUT_NAMES)
def test_required_inputs(path_and_command, kind, bad_inputs, capsys, monkeypatch, tmp_path):
    path, command = path_and_command
    monkeypatch.chdir(tmp_path)
    argv = argv_for(path, command, str(bad_inputs[kind]))
    before = sorted(p.name for p in tmp_path.iterdir())
    code, out, err = run_cli(argv, capsys)
    assert_one_clear_line(argv, code, out, err, must_fail=" ".join(path) not in MAY_SUCCEED.get(kind, ()))
    if code != 0:
        assert sorted(p.name for p in tmp_path.iterdir()) == before, "a failed command left files behind"


def optional_textual_params(command) -> list:
    return [param for param, textual in value_params(command) if textual and not param.required]


#: valid values ("spec": a tiny spec, "run": a finished run) for the required parameters of commands
#: whose options are exercised; commands without required parameters need none
BASELINES = {"train": {"spec": "spec"}, "report": {"runs": "run"}, "resume": {"run": "run"}}


def _has_baseline(path: list[str], command) -> bool:
    required = {param.name for param, _ in value_params(command) if param.required}
    return required <= set(BASELINES.get(" ".join(path), {}))


#: optional parameters are given a regular file where they may expect a folder, or a path below a file
OPTION_INPUTS = ["under-a-file", "garbage"]


@pytest.mark.parametrize(
    "path_and_option",
    [(path, command, option) for path, command in ALL_COMMANDS if _has_baseline(path, command)
     for option in optional_textual_params(command) if option.name not in BASELINES.get(" ".join(path), {})],
    ids=lambda pco: "-".join(pco[0] + [pco[2].opts[0]]),
)
@pytest.mark.parametrize("kind", OPTION_INPUTS)
def test_optional_inputs(path_and_option, kind, bad_inputs, good_run, capsys, monkeypatch, tmp_path):
    path, command, option = path_and_option
    monkeypatch.chdir(tmp_path)
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC)
    valid = {"spec": spec, "run": good_run}
    overrides = {name: valid[what] for name, what in BASELINES.get(" ".join(path), {}).items()}
    argv = argv_for(path, command, "", overrides={**overrides, option.name: bad_inputs[kind]})
    code, out, err = run_cli(argv, capsys)
    assert_one_clear_line(argv, code, out, err, must_fail=False)


#: commands whose arguments are all optional but that need one of several: bare, one line names the choices
NEEDS_ONE_OF = {"gohr serve": "give the rules to play: rule names, --rule-list FILE, --trial-list FILE or --study FILE",
               "train": "give a spec to train, or --from RUN to continue a finished run"}


@pytest.mark.parametrize("path_and_command", [pc for pc in ALL_COMMANDS if argv_for(*pc, "") == pc[0]],
                         ids=lambda pc: "-".join(pc[0]))
def test_commands_without_required_input_succeed_bare(path_and_command, capsys, monkeypatch, tmp_path):
    path, _ = path_and_command
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(list(path), capsys)
    if " ".join(path) in NEEDS_ONE_OF:  # bare, it refuses with one line naming the choices
        assert (code, err.startswith(f"error: {NEEDS_ONE_OF[' '.join(path)]}")) == (2, True), err
        return
    assert code == 0, f"zoo {' '.join(path)}: exit {code}\n{err}"
    assert out.strip() and not [line for line in err.splitlines() if not line.startswith("warning: ")]


# -- full and read-only disks, and the boundary itself -------------------------------------------

def _raise_os_error(code: int):
    def fail(*args, **kwargs):
        raise OSError(code, os.strerror(code))

    return fail


def test_a_full_disk_at_a_write_keeps_the_old_file(tmp_path, capsys, monkeypatch):
    from zoo import store

    out = tmp_path / "schema.json"
    out.write_text("old\n")
    monkeypatch.setattr(store.os, "fsync", _raise_os_error(errno.ENOSPC))
    code, _, err = run_cli(["schema", "-o", str(out)], capsys)
    assert (code, err) == (1, f"error: {out}: cannot write: No space left on device\n")
    assert out.read_text() == "old\n"
    assert [p.name for p in tmp_path.iterdir()] == ["schema.json"]


def test_a_read_only_runs_folder_leaves_nothing(tmp_path, capsys, monkeypatch):
    from zoo import store

    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC)
    runs = tmp_path / "runs"
    runs.mkdir()
    import tempfile
    import types

    # the store's folder creation fails as on a read-only mount (root ignores permission bits)
    monkeypatch.setattr(store, "tempfile", types.SimpleNamespace(mkdtemp=_raise_os_error(errno.EROFS), mkstemp=tempfile.mkstemp))
    code, _, err = run_cli(["train", str(spec), "--runs-dir", str(runs), "--no-progress"], capsys)
    assert code == 1
    assert err.startswith(f"error: {runs}/tiny-") and err.endswith(": cannot create the run folder: Read-only file system\n")
    assert list(runs.iterdir()) == []


def test_schema_into_a_missing_folder(tmp_path, capsys):
    target = tmp_path / "missing" / "schema.json"
    code, _, err = run_cli(["schema", "-o", str(target)], capsys)
    assert (code, err) == (1, f"error: {target}: cannot write: no such folder {target.parent}\n")
    assert not (tmp_path / "missing").exists()


def test_run_dir_under_a_file(tmp_path, capsys):
    spec = tmp_path / "tiny.yaml"
    spec.write_text(SPEC)
    code, _, err = run_cli(["train", str(spec), "--run-dir", str(spec / "run"), "--no-progress"], capsys)
    assert (code, err) == (1, f"error: {spec / 'run'}: cannot create the run folder: {spec} is a file, not a folder\n")


@pytest.mark.parametrize("kind, message", [
    ("run-json-list", "damaged manifest: expected a JSON object, found list"),
    ("run-json-null", "damaged manifest: expected a JSON object, found null"),
    ("run-json-bytes", "damaged, not JSON"),
    ("run-json-without-seeds", "damaged manifest: no 'seeds'"),
])
def test_a_damaged_manifest_is_named(kind, message, bad_inputs, capsys):
    code, _, err = run_cli(["resume", str(bad_inputs[kind]), "--no-progress"], capsys)
    assert code == 2
    assert err.startswith(f"error: {bad_inputs[kind] / 'run.json'}: {message}")


@pytest.mark.parametrize("kind, message", [
    ("metrics-step-not-integer", "no integer 'step'"),
    ("metrics-without-step", "no integer 'step'"),
    ("metrics-return-not-number", "'episode_return' is 'high', not a number"),
    ("metrics-row-a-list", "not a JSON object"),
])
def test_a_damaged_metrics_row_is_named_with_its_line(kind, message, bad_inputs, capsys, tmp_path):
    code, _, err = run_cli(["report", str(bad_inputs[kind]), "-o", str(tmp_path / "out")], capsys)
    where = bad_inputs[kind] / "trials" / "000" / "metrics.jsonl"
    assert code == 0, err
    assert f"warning: {where}:2: damaged metrics row skipped ({message})" in err.splitlines()


def test_an_unexpected_exception_is_one_line_and_debug_shows_it(tmp_path, capsys, monkeypatch):
    import zoo

    def broken(registry):
        raise RuntimeError("plugin bug\nsecond line")

    monkeypatch.setattr(zoo, "json_schema", broken)
    code, _, err = run_cli(["schema"], capsys)
    assert (code, err) == (1, "error: internal error: RuntimeError: plugin bug second line"
                              " (a bug in zoo or one of its plugins; run with --debug for the traceback)\n")
    with pytest.raises(RuntimeError, match="plugin bug"):
        main(["--debug", "schema"])


def test_a_trial_folder_that_is_a_file_is_named(bad_inputs, capsys):
    run_path = bad_inputs["trial-a-file"]
    code, _, err = run_cli(["resume", str(run_path), "--no-progress"], capsys)
    assert (code, err) == (1, f"error: {run_path / 'trials' / '001'}: cannot use: is a file, not a folder\n")
