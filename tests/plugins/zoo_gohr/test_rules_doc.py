"""docs/algorithms/gohr-rules.md names the module of each part of the engine, and those modules exist."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
PAGE = ROOT / "docs" / "algorithms" / "gohr-rules.md"
PACKAGE = ROOT / "plugins" / "zoo_gohr"


def _named_files() -> set[str]:
    return set(re.findall(r"`([\w/]+\.py)`", PAGE.read_text(encoding="utf-8")))


def test_every_file_the_page_names_exists():
    missing = [name for name in sorted(_named_files()) if not ((PACKAGE / name).is_file() or (ROOT / name).is_file())]
    assert missing == []


def test_the_page_names_every_module_of_the_engine_and_the_vector_layer():
    modules = {path.relative_to(PACKAGE).as_posix() for folder in ("engine", "vector")
               for path in (PACKAGE / folder).glob("*.py") if path.name != "__init__.py"}
    assert sorted(modules - _named_files()) == []
