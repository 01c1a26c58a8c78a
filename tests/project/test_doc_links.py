"""Every relative link in the docs leads somewhere: the file exists, and an anchor names one of its headings."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", ROOT / "CONTRIBUTING.md", ROOT / "CHANGELOG.md", *sorted((ROOT / "docs").rglob("*.md"))]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\((?P<target>[^)\s]+)\)")


def anchors(page: Path) -> set[str]:
    """GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
    found = set()
    for heading in re.findall(r"^#{1,6} (.+)$", text, flags=re.M):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        found.add(slug)
    return found


def links() -> list[tuple[str, Path, str]]:
    out = []
    for page in PAGES:
        text = re.sub(r"```.*?```", "", page.read_text(encoding="utf-8"), flags=re.S)
        for match in LINK.finditer(text):
            target = match.group("target")
            if not re.match(r"[a-z]+:", target):
                out.append((f"{page.relative_to(ROOT)} -> {target}", page, target))
    return out


LINKS = links()


def test_the_docs_link_to_each_other() -> None:
    assert len(LINKS) > 30


@pytest.mark.parametrize(("where", "page", "target"), LINKS, ids=[w for w, _, _ in LINKS])
def test_a_relative_link_leads_to_a_file_and_heading(where: str, page: Path, target: str) -> None:
    path, _, anchor = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    assert destination.exists(), f"{where}: no such file"
    if anchor and destination.suffix == ".md":
        assert anchor in anchors(destination), f"{where}: no heading #{anchor}"
