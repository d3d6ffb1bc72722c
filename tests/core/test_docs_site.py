"""The docs site builds, and every console and YAML block of its pages works as written.

The convention (docs/index.md, "How these pages are tested"):

* a ``yaml`` block is a run spec or a document that ``zoo validate`` recognises (a study, a board),
  validated against the installed plugins; ``<!-- file: NAME -->`` just above it also writes it to NAME in the scratch folder;
* the ``$ zoo ...`` lines of a ``console`` block run in that scratch folder and must succeed; pages
  run in the order of the site's navigation and share the folder, so a page may read an earlier
  page's runs;
* ``<!-- not-run: reason -->`` above a console block: its ``zoo`` commands are parsed, not run, and
  only such a block may hold other commands;
* the ``python`` blocks of a page run in order, in one namespace, in a scratch folder;
* ``text`` blocks and blocks without a language are prose.

docs/plugins.md is exercised whole by tests/core/test_docs.py (it needs the package it teaches).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest
import typer
import yaml

from zoo.documents import document_kind, validate_file
from zoo.registry import Registry
from zoo.spec import load_spec_text

ROOT = Path(__file__).parents[2]
DOCS = ROOT / "docs"
OWN_TEST = {"plugins.md": "tests/core/test_docs.py", "workflow.md": "tests/core/test_workflow_doc.py"}  # pages another test runs whole
PROSE = {"", "text"}
FENCE = re.compile(r"^([ \t]*)```(\w*)\n(.*?)^\1```$", re.MULTILINE | re.DOTALL)  # list items indent theirs
MARK = re.compile(r"<!--\s*(not-run|file):\s*(.*?)\s*-->\s*\n(?:[ \t]*\n)*\Z")


@dataclass
class Block:
    page: str
    line: int
    language: str
    text: str
    mark: tuple[str, str] | None  # ("not-run", reason) or ("file", name)

    @property
    def where(self) -> str:
        return f"{self.page}:{self.line}"


def nav_pages() -> list[str]:
    """The pages of mkdocs.yml's navigation, in order."""
    def walk(items):
        for item in items:
            value = next(iter(item.values())) if isinstance(item, dict) else item
            yield from walk(value) if isinstance(value, list) else [value]

    return list(walk(yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]))


def pages() -> list[str]:
    """Every page: the README, then the site's pages in navigation order, then any page the nav leaves out."""
    listed = nav_pages()
    rest = sorted(path.relative_to(DOCS).as_posix() for path in DOCS.rglob("*.md") if "figures" not in path.parts)
    return ["../README.md", *listed, *[page for page in rest if page not in listed]]


def blocks(page: str) -> list[Block]:
    text = (DOCS / page).read_text(encoding="utf-8")
    found = []
    for match in FENCE.finditer(text):
        mark = MARK.search(text, 0, match.start())
        found.append(Block(page, text.count("\n", 0, match.start()) + 1, match[2], textwrap.dedent(match[3]),
                           (mark[1], mark[2]) if mark else None))
    return found


def checked_blocks(language: str) -> list[Block]:
    return [block for page in pages() if page not in OWN_TEST for block in blocks(page) if block.language == language]


def commands(block: Block) -> list[tuple[dict[str, str], list[str]]]:
    """(environment variables, words) of each command of a console block (``&&`` chains split)."""
    result = []
    for line in block.text.splitlines():
        if not line.startswith("$ "):
            continue
        words = shlex.split(line[2:], comments=True)
        while words:
            chain = words.index("&&") if "&&" in words else len(words)
            command, words = words[:chain], words[chain + 1:]
            variables = {}
            while command and re.fullmatch(r"[A-Z_][A-Z0-9_]*=.*", command[0]):
                name, value = command.pop(0).split("=", 1)
                variables[name] = value
            result.append((variables, command))
    return result


def is_zoo(words: list[str]) -> bool:
    return bool(words) and Path(words[0]).name == "zoo"


def parse_zoo_command(words: list[str]) -> None:
    """Parse a ``zoo`` command line as the CLI would, down to its subcommand, without running it."""
    from zoo import cli

    cli._add_plugin_commands()
    command = typer.main.get_command(cli.app)  # a click command (typer's own copy of click)
    context = command.make_context("zoo", list(words), resilient_parsing=False)
    while hasattr(command, "resolve_command"):  # a group: the next word names the subcommand
        name, command, rest = command.resolve_command(context, [*context._protected_args, *context.args])
        context = command.make_context(name, rest, parent=context, resilient_parsing=False)


@pytest.fixture(scope="module")
def registry() -> Registry:
    registry = Registry()
    registry.load_entry_points()
    return registry


@pytest.mark.slow  # the docs site build
def test_the_site_builds_strict(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file", str(ROOT / "mkdocs.yml"),
         "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=300, env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},
    )
    assert result.returncode == 0, result.stderr
    reference = (tmp_path / "site" / "reference" / "zoo" / "index.html").read_text(encoding="utf-8")
    assert 'id="zoo.TrialContext"' in reference  # the API reference is generated from the docstrings


def test_every_block_follows_the_convention():
    problems = []
    for page in pages():
        allowed = PROSE | {"console", "yaml", "python"} | ({"toml"} if page in OWN_TEST else set())
        for block in blocks(page):
            if block.language not in allowed:
                problems.append(f"{block.where}: a '{block.language}' block (use one of {sorted(allowed)})")
            if block.mark and block.mark[0] == "not-run" and (block.language != "console" or not block.mark[1]):
                problems.append(f"{block.where}: not-run marks a console block and gives a reason")
            if block.mark and block.mark[0] == "file" and block.language != "yaml":
                problems.append(f"{block.where}: file marks a yaml block")
            if block.language == "console" and not commands(block):
                problems.append(f"{block.where}: a console block without a '$ ' command")
    assert problems == []


@pytest.mark.parametrize("block", checked_blocks("yaml"), ids=lambda block: block.where)
def test_the_yaml_blocks_validate(block, registry, tmp_path):
    data = yaml.safe_load(block.text)
    assert isinstance(data, dict), f"{block.where}: a spec, a study or a board is a mapping"
    kind = document_kind(data, registry)
    if kind is not None:  # a study, a board: what `zoo validate` recognises by its keys
        path = tmp_path / "document.yaml"
        path.write_text(block.text, encoding="utf-8")
        assert validate_file(path, registry).startswith(f"{kind.name}: ")
    else:
        spec = load_spec_text(block.text, registry, source=block.where)
        assert (spec.env.type, spec.agent.type) == (data["env"]["type"], data["agent"]["type"])


@pytest.mark.parametrize("page", sorted({block.page for block in checked_blocks("python")}))
def test_the_python_blocks_run(page, tmp_path, monkeypatch):
    """A page's python blocks run in order, in one namespace, as a reader pasting them would."""
    monkeypatch.chdir(tmp_path)
    namespace: dict = {"__name__": "__docs__"}
    for block in blocks(page):
        if block.language == "python":
            exec(compile(block.text, block.where, "exec"), namespace)


def test_the_commands_not_run_parse(tmp_path, monkeypatch):
    (tmp_path / "examples").symlink_to(ROOT / "examples")
    monkeypatch.chdir(tmp_path)  # arguments that name files are checked from where the commands would run
    parsed = 0
    for block in checked_blocks("console"):
        if block.mark and block.mark[0] == "not-run":
            for _, words in commands(block):
                if is_zoo(words):
                    try:
                        parse_zoo_command(words[1:])
                    except Exception as exc:  # click's usage errors, and a bad file argument
                        pytest.fail(f"{block.where}: {shlex.join(words)}: {type(exc).__name__}: {exc}")
                    parsed += 1
    assert parsed


@pytest.mark.slow  # every console block of the site in subprocesses
def test_the_console_commands_run(tmp_path, zoo_cli_with):
    """Every page's runnable commands, in navigation order, in one scratch folder."""
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    (scratch / "examples").symlink_to(ROOT / "examples")
    (scratch / "leaderboards").symlink_to(ROOT / "leaderboards")
    zoo = zoo_cli_with(ZOO_RUNS_DIR=str(scratch / "runs"))
    ran = []
    for page in pages():
        if page in OWN_TEST:
            continue
        for block in blocks(page):
            if block.mark and block.mark[0] == "file":
                (scratch / block.mark[1]).write_text(block.text, encoding="utf-8")
            if block.language != "console" or (block.mark and block.mark[0] == "not-run"):
                continue
            for variables, words in commands(block):
                assert is_zoo(words), f"{block.where}: '{shlex.join(words)}' is not a zoo command; mark the block not-run"
                result = zoo.run(*words[1:], cwd=scratch, timeout=300, **variables)
                assert result.returncode == 0, f"{block.where}: {shlex.join(words)}\n{result.stdout}\n{result.stderr}"
                ran.append(shlex.join(words))
    assert "zoo train catch.yaml --run-dir runs/catch --no-progress" in ran
    assert (scratch / "catch-report" / "summary.json").is_file()
