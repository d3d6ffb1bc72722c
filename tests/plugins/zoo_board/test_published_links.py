"""Every link of a published board's pages leads to a file checked into the repository."""

import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[3] / "docs"
PAGES = sorted(DOCS.glob("leaderboard/leaderboard.*")) + sorted(DOCS.glob("boards/*/leaderboard.*"))
LINK = {".html": re.compile(r"""href=['"]([^'"#]+)['"]"""), ".md": re.compile(r"\]\(([^)#\s]+)\)")}


@pytest.mark.parametrize("page", [p for p in PAGES if p.suffix in LINK], ids=lambda p: str(p.relative_to(DOCS)))
def test_every_link_of_a_published_board_resolves(page):
    links = [link for link in LINK[page.suffix].findall(page.read_text(encoding="utf-8"))
             if not re.match(r"[a-z]+:", link)]
    assert links, f"{page} links to nothing: the cells' specs should be reachable from it"
    dead = [link for link in links if not (page.parent / link).is_file()]
    assert not dead, f"{len(dead)} of {len(links)} links of {page} lead nowhere, e.g. {dead[:3]}"
