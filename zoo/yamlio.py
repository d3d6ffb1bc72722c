"""Safe YAML loading that remembers where every value came from.

Specs are untrusted input: only plain data is built (no Python tags), aliases are refused
(a "billion laughs" document cannot expand), and the size and depth are bounded. A file is read
up to the size cap whatever it is: a pipe within a timeout, while devices and folders are refused.
"""

from __future__ import annotations

import os
import re
import selectors
import stat
import time
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from .errors import Problem, SpecError

MAX_BYTES = 1 << 20
MAX_DEPTH = 40
MAX_NODES = 100_000
PIPE_TIMEOUT = 10.0  # seconds a pipe may take to deliver a spec

Loc = tuple[str | int, ...]


@dataclass
class LocatedDocument:
    """A parsed document and the (line, column) of each key path, both 1-based."""

    data: Any
    source: str
    marks: dict[Loc, tuple[int, int]] = field(default_factory=dict)
    text: str = ""  # the text parsed, for copying the spec as written without reading it again

    def where(self, loc: Loc) -> tuple[int | None, int | None]:
        """The position of `loc`, or of its nearest ancestor that has one."""
        while True:
            if loc in self.marks:
                return self.marks[loc]
            if not loc:
                return None, None
            loc = loc[:-1]

    def problem(self, loc: Loc, message: str) -> Problem:
        line, column = self.where(loc)
        dotted = ".".join(str(part) for part in loc) or None
        return Problem(message, self.source, line, column, dotted)


class _Composer(yaml.SafeLoader):
    """A SafeLoader that refuses aliases and counts nodes."""

    def compose_node(self, parent, index):  # noqa: D102 - PyYAML hook
        if self.check_event(yaml.AliasEvent):
            event = self.peek_event()
            raise yaml.MarkedYAMLError(
                None, None, "aliases (*name) are not allowed in specs; write the value out", event.start_mark
            )
        self._nodes = getattr(self, "_nodes", 0) + 1
        if self._nodes > MAX_NODES:
            raise yaml.MarkedYAMLError(None, None, f"more than {MAX_NODES} values", self.peek_event().start_mark)
        return super().compose_node(parent, index)


PLAIN_TAGS = {f"tag:yaml.org,2002:{name}" for name in ("map", "seq", "str", "int", "float", "bool", "null")}


def _record(node: yaml.Node, loc: Loc, marks: dict[Loc, tuple[int, int]], loader: _Composer) -> Any:
    """Build plain data from `node`, recording the start of each value (the length of `loc` is its depth)."""
    if len(loc) > MAX_DEPTH:
        raise yaml.MarkedYAMLError(None, None, f"nested deeper than {MAX_DEPTH} levels", node.start_mark)
    if node.tag not in PLAIN_TAGS:
        raise yaml.MarkedYAMLError(
            None, None, f"tag {node.tag} is not allowed; a spec holds plain values (maps, lists, strings, numbers, booleans)",
            node.start_mark,
        )
    marks.setdefault(loc, (node.start_mark.line + 1, node.start_mark.column + 1))
    if isinstance(node, yaml.MappingNode):
        out: dict[Any, Any] = {}
        for key_node, value_node in node.value:
            key = loader.construct_object(key_node, deep=True)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise yaml.MarkedYAMLError(None, None, "mapping keys must be plain values", key_node.start_mark)
            if key in out:
                raise yaml.MarkedYAMLError(None, None, f"duplicate key {key!r}", key_node.start_mark)
            marks[loc + (key,)] = (key_node.start_mark.line + 1, key_node.start_mark.column + 1)
            out[key] = _record(value_node, loc + (key,), marks, loader)
        return out
    if isinstance(node, yaml.SequenceNode):
        return [_record(item, loc + (i,), marks, loader) for i, item in enumerate(node.value)]
    return loader.construct_object(node, deep=True)


def load_text(text: str, source: str) -> LocatedDocument:
    """Parse YAML text into a LocatedDocument, raising SpecError on any problem."""
    if len(text.encode("utf-8", "replace")) > MAX_BYTES:
        raise SpecError([Problem(f"file is larger than {MAX_BYTES} bytes; a spec is a short document", source)])
    _check_printable(text, source)
    loader = _Composer(text)
    try:
        node = loader.get_single_node()
        if node is None:
            raise SpecError([Problem("the document is empty; a spec is a mapping with env, agent and budget", source)])
        marks: dict[Loc, tuple[int, int]] = {}
        data = _record(node, (), marks, loader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (None, None)
        message = (exc.problem or exc.context or "malformed YAML").strip()
        if exc.context and exc.problem:
            started = f" started at line {exc.context_mark.line + 1}" if exc.context_mark else ""
            message = f"{exc.context.strip()}{started}: {exc.problem.strip()}"
        raise SpecError([Problem(f"malformed YAML: {message}", source, line, column)]) from None
    except yaml.YAMLError as exc:
        raise SpecError([Problem(f"malformed YAML: {' '.join(str(exc).split())}", source)]) from None
    except (ValueError, OverflowError, RecursionError) as exc:
        # an escape past U+10FFFF (ValueError), or past the C int that chr() takes (OverflowError): the scanner
        # stops where it read, which places the value
        placed = isinstance(exc, (ValueError, OverflowError))
        line, column = (loader.line + 1, loader.column + 1) if placed else (None, None)
        raise SpecError([Problem(f"unusable value: {str(exc).split(';')[0]}", source, line, column)]) from None
    finally:
        loader.dispose()
    return LocatedDocument(data, source, marks, text)


#: what YAML 1.1 allows in a stream (PyYAML's reader refuses the rest without a line or column)
_NOT_PRINTABLE = re.compile("[^\x09\x0A\x0D\x20-\x7E\x85\xA0-\uD7FF\uE000-\uFFFD\U00010000-\U0010FFFF]")


def _check_printable(text: str, source: str) -> None:
    found = _NOT_PRINTABLE.search(text)
    if found:
        line, column = _position(text, found.start())
        code = ord(found.group())
        kind = "control character" if unicodedata.category(found.group()) == "Cc" else "character"
        escape = f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"
        raise SpecError([Problem(
            f"{kind} U+{code:04X} is not allowed in a spec; write it as {escape} inside a double-quoted string,"
            " or remove it", source, line, column,
        )])


def _position(text: str | bytes, offset: int) -> tuple[int, int]:
    """The 1-based (line, column) of `offset` in `text`."""
    newline = "\n" if isinstance(text, str) else b"\n"
    line_start = text.rfind(newline, 0, offset) + 1
    return text.count(newline, 0, offset) + 1, offset - line_start + 1


def load_file(path: str | Path) -> LocatedDocument:
    """Read and parse a YAML file; a missing, unreadable or oversized file is a SpecError."""
    data = read_capped(path)
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line, column = _position(data, exc.start)
        raise SpecError([Problem(f"not UTF-8 text ({exc.reason} at byte {exc.start})", str(path), line, column)]) from None
    return load_text(text, str(path))


def read_capped(path: str | Path, cap: int = MAX_BYTES, timeout: float = PIPE_TIMEOUT) -> bytes:
    """The bytes of a regular file or a pipe, refusing more than `cap` of them.

    A pipe (``<(command)``, a FIFO) is read until its writer closes it, for at most `timeout`
    seconds; directories, devices and sockets are refused. Every failure is a SpecError.
    """
    source = str(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise _refused(source, "no such file") from None
    except OSError as exc:
        raise _refused(source, f"cannot read: {exc.strerror or exc}") from None
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise _refused(source, "is a directory, not a spec file")
        if stat.S_ISFIFO(mode):
            return _read_pipe(fd, cap, timeout, source)
        if not stat.S_ISREG(mode):
            kind = "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "not a regular file"
            raise _refused(source, f"is {kind}, not a spec file")
        os.set_blocking(fd, True)
        chunks, size = [], 0
        while size <= cap:
            chunk = os.read(fd, cap + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise _refused(source, f"cannot read: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    if size > cap:
        raise _refused(source, f"file is larger than {cap} bytes; a spec is a short document")
    return b"".join(chunks)


def _refused(source: str, message: str) -> SpecError:
    return SpecError([Problem(message, source)])


def _read_pipe(fd: int, cap: int, timeout: float, source: str) -> bytes:
    """Read a pipe until end of file; a silent writer or one that never comes ends in a SpecError."""
    deadline = time.monotonic() + timeout
    chunks, size = [], 0
    with selectors.DefaultSelector() as selector:
        selector.register(fd, selectors.EVENT_READ)
        while True:
            if not selector.select(max(0.0, deadline - time.monotonic())):
                raise _refused(source, f"pipe gave no end of file within {timeout:g} s; a spec is read from a file or a closed pipe")
            chunk = os.read(fd, 65536)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
            if size > cap:
                raise _refused(source, f"more than {cap} bytes from a pipe; a spec is a short document")
