"""The README and the pages under docs/ hang together: every relative link reaches an existing file, every #anchor
a heading of its page (by GitHub's anchor rule), and the README links every page of docs/. The licence and the
changelog agree with the package."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"

FENCE = re.compile(r"^ *```.*?^ *```[^\n]*$", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`[^`\n]*`")
LINK = re.compile(r"!?\[(?P<text>[^\]]*)\]\((?P<target>[^)\s]+)(?: \"[^\"]*\")?\)")
HEADING = re.compile(r"^#{1,6} +(?P<text>.+?) *#* *$", re.MULTILINE)
EXTERNAL = re.compile(r"^[a-z][a-z0-9+.-]*:", re.IGNORECASE)  # http:, https:, mailto:, ...


def pages() -> list[Path]:
    """The README and every Markdown page of docs/."""
    return [README, *sorted(DOCS.glob("*.md"))]


def prose(page: Path) -> str:
    """The page without its fenced code blocks, where a '#' line or a bracket is code, not Markdown."""
    return FENCE.sub("", page.read_text())


def links(page: Path) -> list[str]:
    """The targets of the page's Markdown links, outside code blocks and code spans."""
    return [m["target"] for m in LINK.finditer(CODE_SPAN.sub("", prose(page)))]


def relative_links(page: Path) -> list[tuple[Path, str]]:
    """Each link to a place in this repository as (the file it names, its #anchor or ''); web links left out."""
    found = []
    for target in links(page):
        if EXTERNAL.match(target):
            continue
        path, _, anchor = target.partition("#")
        found.append(((page.parent / path).resolve() if path else page.resolve(), anchor))
    return found


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: its text as shown (code marks and link targets gone), lower case, every
    character but letters, digits, '_', '-' and spaces dropped, each space a '-'."""
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", heading).replace("`", "")
    return re.sub(r"[^\w\- ]", "", text.lower()).replace(" ", "-")


def anchors(page: Path) -> set[str]:
    """The anchors of the page's headings; a repeated one also as GitHub numbers it (-1, -2, ...)."""
    found: set[str] = set()
    for m in HEADING.finditer(prose(page)):
        base = name = anchor(m["text"])
        repeat = 0
        while name in found:
            repeat += 1
            name = f"{base}-{repeat}"
        found.add(name)
    return found


def test_the_anchor_rule_is_githubs() -> None:
    """Known GitHub anchors of headings with code, punctuation and underscores."""
    assert anchor("Choosing kernels: `--kernel`") == "choosing-kernels---kernel"
    assert anchor("Ceilings: kernel-clock, datasheet and the report's own") == (
        "ceilings-kernel-clock-datasheet-and-the-reports-own")
    assert anchor("JSON output (`--format json`, schema_version 3)") == "json-output---format-json-schema_version-3"


def test_the_docs_folder_has_pages() -> None:
    """docs/ holds pages, so the checks below cannot pass on an empty folder."""
    assert len(pages()) > 1


def test_every_relative_link_points_to_an_existing_file() -> None:
    """A link to a page or file of the repository names one that exists."""
    broken = [f"{page.relative_to(REPO)}: {path}" for page in pages() for path, _ in relative_links(page)
              if not path.exists()]
    assert not broken, "\n".join(broken)


def test_every_anchor_link_points_to_a_heading_of_its_page() -> None:
    """A #anchor, on the same page or another, is the anchor of a heading of that page."""
    broken = [f"{page.relative_to(REPO)}: {path.name}#{name}" for page in pages()
              for path, name in relative_links(page)
              if name and path.suffix == ".md" and path.exists() and name not in anchors(path)]
    assert not broken, "\n".join(broken)


def test_every_docs_page_is_linked_from_the_readme() -> None:
    """The README's list of pages is complete: no page of docs/ is reachable only by browsing the folder."""
    linked = {path for path, _ in relative_links(README)}
    assert [p.name for p in sorted(DOCS.glob("*.md")) if p.resolve() not in linked] == []


def test_the_changelog_has_the_package_version_and_unreleased_changes() -> None:
    """CHANGELOG.md in Keep a Changelog form: an Unreleased section first, then a section of the package's version."""
    from roofline import __version__

    versions = re.findall(r"^## \[([^\]]+)\]", (REPO / "CHANGELOG.md").read_text(), flags=re.M)
    assert versions[:2] == ["Unreleased", __version__]


def test_the_licence_is_the_one_the_package_declares() -> None:
    """LICENSE holds the licence that pyproject.toml declares and the README names."""
    declared = re.search(r'^license = \{ text = "([^"]+)" \}$', (REPO / "pyproject.toml").read_text(), flags=re.M)
    assert declared is not None
    assert (REPO / "LICENSE").read_text().splitlines()[0] == f"{declared[1]} License"
    assert f"{declared[1]} ([LICENSE](LICENSE))" in README.read_text()
