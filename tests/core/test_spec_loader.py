"""The spec loader's input bounds: file types, size cap, pipe timeout, strict scalars, run names from file stems."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import pytest

from zoo.cli import main
from zoo.errors import SpecError
from zoo.registry import get_registry
from zoo.spec import load_spec, load_spec_text, run_name
from zoo.yamlio import MAX_BYTES, load_file, load_text, read_capped

SPEC = "env: {type: gym, id: CartPole-v1}\nagent: {type: ppo}\nbudget: {steps: 100}\n"


def only_problem(excinfo) -> str:
    problems = excinfo.value.problems
    assert len(problems) == 1
    return str(problems[0])


@pytest.mark.timeout(60)
def test_a_fifo_without_a_writer_times_out(tmp_path):
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)
    started = time.monotonic()
    with pytest.raises(SpecError) as excinfo:
        read_capped(fifo, timeout=0.3)
    assert 0.3 <= time.monotonic() - started < 5
    assert only_problem(excinfo) == f"{fifo}: pipe gave no end of file within 0.3 s; a spec is read from a file or a closed pipe"


@pytest.mark.timeout(60)
def test_a_fifo_is_read_until_its_writer_closes_it(tmp_path):
    fifo = tmp_path / "spec.yaml"
    os.mkfifo(fifo)

    def write_late():
        time.sleep(0.2)
        with open(fifo, "w", encoding="utf-8") as handle:
            handle.write(SPEC[:20])
            handle.flush()
            time.sleep(0.1)
            handle.write(SPEC[20:])

    writer = threading.Thread(target=write_late)
    writer.start()
    try:
        assert read_capped(fifo, timeout=10).decode() == SPEC
    finally:
        writer.join()


@pytest.mark.timeout(60)
def test_an_endless_pipe_stops_at_the_cap():
    read_end, write_end = os.pipe()
    written = 0

    def flood():
        nonlocal written
        try:
            with os.fdopen(write_end, "wb", buffering=0) as handle:
                while True:
                    written += handle.write(b"a" * 65536)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=flood, daemon=True)
    writer.start()
    cap = 1 << 18
    with pytest.raises(SpecError) as excinfo:
        read_capped(f"/dev/fd/{read_end}", cap=cap, timeout=10)
    os.close(read_end)
    writer.join(timeout=5)
    assert only_problem(excinfo).endswith(f"more than {cap} bytes from a pipe; a spec is a short document")
    assert written <= cap + 2 * 65536 + (1 << 20)  # the cap, a read's chunk, the pipe's buffer


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/urandom"])
def test_devices_are_refused_without_reading(device):
    with pytest.raises(SpecError) as excinfo:
        load_file(device)
    assert only_problem(excinfo) == f"{device}: is a device, not a spec file"


def test_a_directory_is_refused(tmp_path):
    with pytest.raises(SpecError) as excinfo:
        load_file(tmp_path)
    assert only_problem(excinfo) == f"{tmp_path}: is a directory, not a spec file"


def test_a_file_over_the_cap_is_refused_without_reading_it_whole(tmp_path):
    big = tmp_path / "big.yaml"
    with big.open("wb") as handle:
        handle.truncate(MAX_BYTES * 64)  # sparse: reading it all would take 64 MiB
    with pytest.raises(SpecError) as excinfo:
        load_file(big)
    assert only_problem(excinfo) == f"{big}: file is larger than {MAX_BYTES} bytes; a spec is a short document"
    exact = tmp_path / "exact.yaml"
    exact.write_bytes(b"#" * MAX_BYTES)
    with pytest.raises(SpecError, match="the document is empty"):
        load_file(exact)


def test_bytes_that_are_not_utf8_are_placed(tmp_path):
    spec = tmp_path / "latin1.yaml"
    spec.write_bytes(SPEC.encode() + b"description: caf\xe9\n")
    with pytest.raises(SpecError) as excinfo:
        load_file(spec)
    assert only_problem(excinfo) == f"{spec}:4:17: not UTF-8 text (invalid continuation byte at byte {len(SPEC) + 16})"


def test_an_unreadable_file_is_one_message(tmp_path, monkeypatch):
    import errno

    from zoo import yamlio

    def denied(path, flags):
        raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))

    monkeypatch.setattr(yamlio.os, "open", denied)  # the tests may run as root, whom modes do not stop
    with pytest.raises(SpecError) as excinfo:
        load_file(tmp_path / "secret.yaml")
    assert only_problem(excinfo) == f"{tmp_path / 'secret.yaml'}: cannot read: Permission denied"


def test_control_characters_are_placed_before_yaml_sees_them():
    with pytest.raises(SpecError) as excinfo:
        load_spec_text(SPEC + "description: a\x1bb\n", get_registry(), "s.yaml")
    assert only_problem(excinfo).startswith("s.yaml:4:15: control character U+001B is not allowed in a spec")


def test_exponent_numbers_are_whole_numbers_when_integral():
    spec = load_spec_text(SPEC.replace("steps: 100", "steps: 1e5"), get_registry())
    assert spec.budget.steps == 100000 and type(spec.budget.steps) is int
    with pytest.raises(SpecError, match="budget.steps: Input should be a valid integer, got a number with a fractional part"):
        load_spec_text(SPEC.replace("steps: 100", "steps: 2.5e-1"), get_registry())


@pytest.mark.parametrize("value", ["1", "0", "'yes'", "'true'", "1.0"])
def test_only_true_and_false_are_booleans(value):
    with pytest.raises(SpecError, match="logging.tensorboard: expected true or false"):
        load_spec_text(SPEC + f"logging: {{tensorboard: {value}}}\n", get_registry())
    assert load_spec_text(SPEC + "logging: {tensorboard: off}\n", get_registry()).logging.tensorboard is False


@pytest.mark.parametrize("stem", ["my spec", "a" * 101, "run\u00e9", "-dash", "\U0001f980"])
def test_a_file_stem_that_cannot_name_a_run_is_refused(tmp_path, stem, capsys):
    path = tmp_path / f"{stem}.yaml"
    path.write_text(SPEC)
    with pytest.raises(SpecError, match="cannot name the run .*; give the spec a 'name:' or rename the file"):
        load_spec(path, get_registry())
    runs = tmp_path / "runs"
    assert main(["train", str(path), "--runs-dir", str(runs), "--no-progress"]) == 2
    assert "cannot name the run" in capsys.readouterr().err
    assert not runs.exists()
    named = tmp_path / f"{stem}-named.yaml"
    named.write_text(SPEC + "name: fine\n")
    assert run_name(load_spec(named, get_registry()), named) == "fine"


def test_the_source_copy_is_the_text_that_was_validated(tmp_path, monkeypatch):
    """prepare_run copies the spec it parsed, not whatever the path holds when it reads it again."""
    from zoo import run as run_module

    spec_path = tmp_path / "source.yaml"
    spec_path.write_text(SPEC + "# as validated\n")
    parse = run_module.parse_spec

    def parse_then_edit(document, registry):
        spec_path.write_text("edited after validation\n")
        return parse(document, registry)

    monkeypatch.setattr(run_module, "parse_spec", parse_then_edit)
    monkeypatch.setattr(run_module, "preflight", lambda spec, registry: None)
    folder = run_module.prepare_run(spec_path, get_registry(), tmp_path / "runs")
    assert (folder.path / run_module.SOURCE_SPEC).read_text() == SPEC + "# as validated\n"
    assert Path(folder.path).name.startswith("source-")


def test_list_items_are_strict_too():
    with pytest.raises(SpecError) as excinfo:
        load_spec_text(SPEC + "trials: 2\nseeds: [1, true]\n", get_registry(), "s.yaml")
    assert only_problem(excinfo) == "s.yaml:5:1: seeds: item 1: expected a whole number, not a boolean (given true)"
    spec = load_spec_text(SPEC.replace("{type: ppo}", "{type: ppo, n_steps: 2e3}"), get_registry())
    assert spec.agent.n_steps == 2000


def test_a_plugin_validator_that_crashes_is_a_problem_of_its_block():
    import types

    from pydantic import model_validator

    from zoo import AgentEntry, EnvEntry, Params, ZooError, hookimpl
    from zoo.registry import Registry

    class FragileParams(Params):
        size: int = 1

        @model_validator(mode="before")
        @classmethod
        def _named_size(cls, data):
            if data.get("size") == "zoo":
                raise ZooError("size 'zoo' is reserved")
            if type(data.get("size")) is int:  # already a size (the registry re-validates dumped defaults)
                return data
            return {**data, "size": {"small": 1, "large": 9}[data.get("size", "small")]}  # KeyError, TypeError

    registry = Registry()
    registry.add("fragile", types.SimpleNamespace(
        register_envs=hookimpl(lambda register: register(EnvEntry(name="e", params=FragileParams, factory=lambda params, seed: None))),
        register_agents=hookimpl(lambda register: register(AgentEntry(name="a", params=Params, factory=lambda params, context: None))),
    ))
    text = "env: {type: e, size: %s}\nagent: {type: a}\nbudget: {steps: 10}\n"
    assert load_spec_text(text % "large", registry).env.size == 9
    for value, error in (("huge", "KeyError: 'huge'"), ("[]", "TypeError: unhashable type: 'list'")):
        with pytest.raises(SpecError) as excinfo:
            load_spec_text(text % value, registry, "s.yaml")
        assert only_problem(excinfo) == (
            f"s.yaml:1:1: env: the environment 'e' could not check these params ({error});"
            " a bug in its plugin, triggered by a value of the wrong kind")
    with pytest.raises(SpecError) as excinfo:
        load_spec_text(text % "zoo", registry, "s.yaml")
    assert only_problem(excinfo) == "s.yaml:1:1: env: size 'zoo' is reserved"


def test_an_escape_past_the_last_code_point_is_placed():
    with pytest.raises(SpecError) as caught:
        load_text('env: {type: gym}\nagent: "\\U00110000"\n', "x.yaml")
    assert str(caught.value) == "x.yaml:2:11: unusable value: chr() arg not in range(0x110000)"


def test_an_escape_past_a_c_int_is_placed():
    # int("c0018D01", 16) does not fit the C int chr() takes: OverflowError, not ValueError (found by fuzzing)
    with pytest.raises(SpecError) as caught:
        load_text('env: {type: gym}\nagent: "\\Uc0018D01"\n', "x.yaml")
    assert str(caught.value).startswith("x.yaml:2:11: unusable value: Python int too large to convert to C int")
