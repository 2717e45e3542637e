"""The campaign files shipped with dealsearch (TOML), found by name from an installed package.

``dealsearch search --config overnight`` runs ``overnight.toml`` from here; the checkout's
top-level ``search/`` folder is a link to this one, so ``--config search/overnight.toml``
works there too.

>>> "overnight" in campaign_names()
True
"""

from __future__ import annotations

from importlib.resources import files
from pathlib import Path


def campaign_names() -> list[str]:
    """Names of the shipped campaigns, without ``.toml``."""
    return sorted(entry.name[:-5] for entry in files(__name__).iterdir()
                  if entry.name.endswith(".toml"))


def config_path(text: str) -> Path:
    """The campaign file ``text`` names: a bare name (no folder, no ``.toml``) is a shipped
    campaign, anything else a path. ``ValueError`` naming the choices for an unknown name.

    >>> config_path("overnight").name
    'overnight.toml'
    >>> config_path("search/overnight.toml").as_posix()
    'search/overnight.toml'
    """
    path = Path(text)
    if len(path.parts) != 1 or path.suffix:
        return path
    if text not in campaign_names():
        raise ValueError(f"no campaign named {text!r}: choose from "
                         f"{', '.join(campaign_names())}, or give a path to a .toml file")
    return Path(str(files(__name__).joinpath(f"{text}.toml")))
