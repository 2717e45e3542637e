"""MkDocs hook: the package's docstrings cross-reference in Sphinx roles (``:class:`Game```),
which pydoc and editors show as written; on the generated API page they read as code."""

from __future__ import annotations

import re
from typing import Any

# ":class:" then the code of the name: "~" keeps only the last component, as Sphinx does.
ROLE = re.compile(r":(?:class|func|meth|attr|data|mod|exc|obj):<code>(~?)([^<]*)</code>")


def _code(match: re.Match[str]) -> str:
    name = match.group(2)
    return f"<code>{name.rsplit('.', 1)[-1] if match.group(1) else name}</code>"


def on_page_content(html: str, **_: Any) -> str:
    """The page's HTML with every role shown as the code of its name."""
    return ROLE.sub(_code, html)
