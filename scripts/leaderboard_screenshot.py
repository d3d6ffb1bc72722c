"""Open a leaderboard's HTML page in headless Chromium, check it, and save a screenshot of it.

    python scripts/leaderboard_screenshot.py docs/leaderboard/leaderboard.html \
        [--out docs/figures/leaderboard.png] [--chromium /usr/bin/chromium]

The page must load from its file with no script errors and no request leaving the folder, and a
click on the ranking table's score header must sort its rows by that column. The screenshot shows
the top of the page (the ranking and the heatmap) at a desktop width.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from playwright.sync_api import sync_playwright

ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def check_page(page_path: Path, chromium: str, screenshot: Path | None = None) -> list[str]:
    """The problems found on the page (an empty list when it is sound); saves `screenshot` when given."""
    problems: list[str] = []
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=chromium, args=ARGS)
        page = browser.new_page(viewport={"width": 1280, "height": 900})
        page.on("pageerror", lambda error: problems.append(f"script error: {error}"))
        page.on("request", lambda request: None if request.url.startswith(("file:", "data:", "about:"))
                else problems.append(f"request outside the page: {request.url}"))
        page.goto(page_path.resolve().as_uri())
        table = page.locator("table.sortable").first
        header = table.locator("th").nth(2)  # Perron score
        for _ in range(2):  # the first click sorts ascending, the second descending
            header.click()
            keys = table.locator("tbody tr").evaluate_all(
                "rows => rows.map(r => r.cells[2].dataset.key || r.cells[2].textContent)")
            values = [float(k) for k in keys]
            ascending = header.get_attribute("data-order") == "up"
            if values != sorted(values, reverse=not ascending):
                problems.append(f"clicking '{header.inner_text().strip()}' left the rows unsorted: {values}")
        if screenshot is not None:
            screenshot.parent.mkdir(parents=True, exist_ok=True)
            page.reload()
            page.screenshot(path=str(screenshot))
        browser.close()
    return problems


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("page", type=Path)
    parser.add_argument("--out", type=Path, default=Path("docs/figures/leaderboard.png"))
    parser.add_argument("--chromium", default="/usr/bin/chromium")
    args = parser.parse_args()
    problems = check_page(args.page, args.chromium, args.out)
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"{args.page}: {'sound' if not problems else f'{len(problems)} problems'}; screenshot {args.out}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
