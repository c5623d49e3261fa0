"""The documentation holds together: every relative link of the README and of ``docs/*.md`` points at
an existing file (and heading), every docs page is listed in the README, and every place the code
cites a docs page (``docs/methods.md#bte``) exists."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
DOCS = REPO / "docs"
PAGES = [REPO / "README.md", *sorted(DOCS.glob("*.md"))]
#: where the code may cite the docs
CODE = [REPO / "scrapy_bodytext", REPO / "scripts", REPO / "benchmarks", REPO / "tests", REPO / "example_project"]

FENCE = re.compile(r"^```.*?^```[ \t]*$", re.S | re.M)
INLINE_CODE = re.compile(r"(`+)(?:(?!\1).)+?\1", re.S)
LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$", re.M)
HTML_ANCHOR = re.compile(r"<a\s+(?:id|name)=\"([^\"]+)\"", re.I)
CITATION = re.compile(r"\b(docs/[\w-]+\.md)(?:#([\w-]+))?")


def prose(text: str) -> str:
    """The page without its code blocks and inline code, where links are not links."""
    return INLINE_CODE.sub("", FENCE.sub("", text))


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: its text lower-cased, punctuation dropped, spaces as hyphens."""
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", heading)  # links and images: their text
    text = re.sub(r"<[^>]+>", "", text).replace("`", "").replace("*", "")
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    found, seen = set(), {}
    for match in HEADING.finditer(text):
        base = slug(match.group(2))
        count = seen.get(base, 0)
        seen[base] = count + 1
        found.add(base if count == 0 else f"{base}-{count}")
    return found | set(HTML_ANCHOR.findall(text))


def links(page: Path) -> list[str]:
    return LINK.findall(prose(page.read_text(encoding="utf-8")))


def broken(page: Path, target: str) -> str | None:
    """Why a relative link of ``page`` does not resolve, or None."""
    if re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):  # https:, mailto:
        return None
    path, _, anchor = target.partition("#")
    destination = (page.parent / path).resolve() if path else page
    if not destination.exists():
        return f"{target}: no such file"
    if anchor and destination.suffix == ".md" and anchor not in anchors(destination):
        return f"{target}: no heading #{anchor} in {destination.name}"
    return None


def test_slugs_follow_github():
    assert slug("Many machines: scrapy-redis") == "many-machines-scrapy-redis"
    assert slug("`BODYTEXT_ENABLED`") == "bodytext_enabled"
    assert slug("Request.meta keys") == "requestmeta-keys"
    assert slug("How much survives: measured") == "how-much-survives-measured"
    assert slug("Wu & Yang, 2012") == "wu--yang-2012"


@pytest.mark.parametrize("page", PAGES, ids=[str(page.relative_to(REPO)) for page in PAGES])
def test_relative_links_resolve(page):
    problems = [problem for target in links(page) if (problem := broken(page, target))]
    assert problems == []


def test_a_broken_link_is_found(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "# Title\n\n## A section\n\n[ok](#a-section) [bad](#nowhere) [gone](missing.md) "
        "`[code](missing.md)` [web](https://example.org/x)\n",
        encoding="utf-8",
    )
    assert [broken(page, target) for target in links(page)] == [
        None,
        "#nowhere: no heading #nowhere in page.md",
        "missing.md: no such file",
        None,
    ]


def test_the_readme_lists_every_docs_page():
    listed = {target.partition("#")[0] for target in links(REPO / "README.md")}
    missing = [page.name for page in sorted(DOCS.glob("*.md")) if f"docs/{page.name}" not in listed]
    assert missing == []


def code_citations() -> list[tuple[str, str, str | None]]:
    found = []
    for root in CODE:
        for path in sorted(root.rglob("*.py")):
            text = path.read_text(encoding="utf-8")
            for match in CITATION.finditer(text):
                line = text.count("\n", 0, match.start()) + 1
                found.append((f"{path.relative_to(REPO)}:{line}", match.group(1), match.group(2)))
    return found


def test_the_code_cites_docs_sections_that_exist():
    citations = code_citations()
    assert any(page == "docs/methods.md" for _, page, _ in citations)
    problems = []
    for where, page, anchor in citations:
        if not (REPO / page).is_file():
            problems.append(f"{where}: {page} does not exist")
        elif anchor and anchor not in anchors(REPO / page):
            problems.append(f"{where}: {page} has no heading #{anchor}")
    assert problems == []


def test_nothing_cites_a_document_outside_the_repository():
    """Every specification the code relies on is in docs/ (docs/methods.md), not in a file that is
    not part of the repository."""
    outside = "ALGO" + "RITHMS.md"
    offenders = [
        str(path.relative_to(REPO))
        for root in [*CODE, DOCS]
        for path in sorted([*root.rglob("*.py"), *root.rglob("*.md")])
        if outside in path.read_text(encoding="utf-8")
    ]
    if outside in (REPO / "README.md").read_text(encoding="utf-8"):
        offenders.append("README.md")
    assert offenders == []
