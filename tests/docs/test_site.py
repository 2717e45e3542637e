"""The documentation site builds without a warning (broken links, anchors, pages not in nav)."""

from __future__ import annotations

import os
import subprocess
import sys

from docblocks import ROOT


def test_site_builds_strictly(tmp_path):
    result = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--config-file",
         str(ROOT / "mkdocs.yml"), "--site-dir", str(tmp_path / "site")],
        capture_output=True, text=True, timeout=300, check=False,
        env=dict(os.environ, NO_MKDOCS_2_WARNING="1"))   # Material's banner about MkDocs 2
    output = result.stdout + result.stderr
    assert result.returncode == 0, output
    assert "WARNING" not in output, output
    assert (tmp_path / "site" / "index.html").exists()
