"""README is the front page and the reference lives in docs/ (issue 12): every relative link
in README.md and docs/*.md reaches a file that exists, and the front page links each
reference page that took its long sections over."""

from __future__ import annotations

import re
from pathlib import Path

from conftest import REPO

_LINK = re.compile(r"\]\(([^)#\s]+)[^)]*\)|src=\"([^\"]+)\"")


def _pages() -> list[Path]:
    return [REPO / "README.md", *sorted((REPO / "docs").glob("*.md"))]


def test_every_relative_link_reaches_a_file() -> None:
    broken: list[str] = []
    seen = 0
    for page in _pages():
        for m in _LINK.finditer(page.read_text(encoding="utf-8")):
            target = m.group(1) or m.group(2)
            if re.match(r"[a-z]+:", target):
                continue  # https:, mailto:
            seen += 1
            if not (page.parent / target).exists():
                broken.append(f"{page.relative_to(REPO)} -> {target}")
    assert seen > 10, "no links found: the scan is broken"
    assert not broken, broken


def test_the_front_page_links_every_reference_page() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    pages = sorted(p.name for p in (REPO / "docs").glob("*.md"))
    assert {"play.md", "web.md", "rp2040-board.md", "rules-engine.md"} <= set(pages)
    unlinked = [p for p in pages if f"](docs/{p})" not in readme]  # a link, not a mention
    assert not unlinked, f"README.md does not lead to {unlinked}"
