"""Every repository path the docs name exists: a file or folder of the repository written in
code style (`src/dealsearch/game.py`, `search/_generic.pyx`, `yardstick.c`)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from docblocks import PAGES, ROOT, relative

TOP = ("src/", "tests/", "benchmarks/", "data/", "docs/", ".ci/")
PACKAGE = ROOT / "src" / "dealsearch"
SOURCE = (".py", ".pyx", ".pxd", ".pyi", ".c", ".h", ".csv", ".toml", ".md")
SPAN = re.compile(r"`([^`\s]+)`")
# Every file of the repository by name, for names written without their folder.
NAMES = {path.name for path in ROOT.rglob("*") if not {".git", ".venv", "site"} &
         set(path.relative_to(ROOT).parts)}


def named_paths(text: str) -> list[str]:
    """The code spans that name a path of the repository."""
    found = []
    for span in SPAN.findall(text):
        span = span.rstrip(".,:;")
        if span.startswith(TOP) or (span.endswith(SOURCE) and span[0].isalnum()):
            found.append(span)
    return found


def exists(span: str, page: Path) -> bool:
    """Whether the path is there: from the repository's root, the package (``search/...``),
    ``src`` (``dealsearch/...``) or the page; ``<game>`` and ``*`` stand for any name."""
    pattern = re.sub(r"<[^>]+>", "*", span)
    if span.startswith(TOP):
        return any(ROOT.glob(pattern))
    if "/" in span:
        return any(any(base.glob(pattern))
                   for base in (ROOT, PACKAGE, ROOT / "src", page.parent))
    return span in NAMES


@pytest.mark.parametrize("page", PAGES, ids=relative)
def test_every_repository_path_named_exists(page):
    text = page.read_text(encoding="utf-8")
    assert [span for span in named_paths(text) if not exists(span, page)] == []


SPEC_REFERENCE = re.compile(r"RULES[A-Z-]*\.md|\u00a7")
TEXT = (".py", ".pyx", ".pxd", ".pyi", ".c", ".h", ".md", ".toml", ".yml")


def test_the_rules_pages_are_the_specification():
    """Code, tests and docs cite the docs' rules pages, not a rules file users do not have
    or its section numbers."""
    citing = [path.relative_to(ROOT).as_posix()
              for folder in ("src", "tests", "docs", "benchmarks")
              for path in (ROOT / folder).rglob("*") if path.suffix in TEXT
              and not path.with_suffix(".pyx").exists()  # Cython's generated C
              and SPEC_REFERENCE.search(path.read_text(encoding="utf-8"))]
    citing += [name for name in ("README.md", "pyproject.toml", "mkdocs.yml")
               if SPEC_REFERENCE.search((ROOT / name).read_text(encoding="utf-8"))]
    assert citing == []
