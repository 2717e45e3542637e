"""The documentation site builds without a warning (broken links, anchors, pages not in nav),
from this tree and from a copy without the compiled modules (a fresh clone): the API page
documents the compiled :class:`Kernel` and :class:`PythonKernel` from their stub either way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from docblocks import ROOT

# The anchors the plug-in API page must hold (mkdocstrings' ids of the documented objects).
API_ANCHORS = ("dealsearch.plugin.Kernel", "dealsearch.plugin.Kernel.play",
               "dealsearch.plugin.PythonKernel", "dealsearch.plugin.Layout")


def _without_compiled(tmp_path: Path) -> Path:
    """A copy of what the site is built from, as a clone has it: no built extension."""
    copy = tmp_path / "clone"
    for name in ("docs", "src"):
        shutil.copytree(ROOT / name, copy / name,
                        ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "__pycache__"))
    shutil.copy(ROOT / "mkdocs.yml", copy / "mkdocs.yml")
    assert not list((copy / "src").rglob("*.so"))
    return copy


@pytest.mark.parametrize("source", ["tree", "without compiled modules"])
def test_site_builds_strictly(tmp_path, source):
    root = ROOT if source == "tree" else _without_compiled(tmp_path)
    site = tmp_path / "site"
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(root / "mkdocs.yml"), "--site-dir", str(site)],
        capture_output=True, text=True, timeout=300, check=False, cwd=root,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))   # Material's banner about MkDocs 2
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    assert (site / "index.html").exists()
    page = (site / "plugin-api" / "index.html").read_text(encoding="utf-8")
    missing = [anchor for anchor in API_ANCHORS if f'id="{anchor}"' not in page]
    assert not missing, f"the API page lacks {missing}"
