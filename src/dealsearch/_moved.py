"""Old import paths kept working for a while: a package's module ``__getattr__`` hands out a
name that moved, with a :class:`DeprecationWarning` naming where it lives now."""

from __future__ import annotations

import importlib
import warnings
from collections.abc import Mapping
from typing import Any


def moved(package: str, names: Mapping[str, str], name: str) -> Any:
    """``name`` of ``package`` from the module ``names[name]`` names (the module itself when
    the name is that module's old name, e.g. Durak's ``cards``); ``AttributeError`` if
    ``name`` never was there.

    >>> import warnings
    >>> with warnings.catch_warnings(record=True) as caught:
    ...     warnings.simplefilter("always")
    ...     rows = moved("dealsearch.games.durak", {"random_rows": "notation"}, "random_rows")
    >>> rows.__module__, caught[0].category.__name__
    ('dealsearch.games.durak.notation', 'DeprecationWarning')
    """
    if name not in names:
        raise AttributeError(f"module {package!r} has no attribute {name!r}")
    target = f"{package}.{names[name]}"
    module = importlib.import_module(target)
    value = getattr(module, name, module)
    warnings.warn(f"{package}.{name} moved: import it from {target}", DeprecationWarning,
                  stacklevel=3)
    return value


def moved_module(old: str, new: str) -> None:
    """Warn that the module ``old`` is now ``new``: the one line of a shim left at an old
    module path, which re-exports the old names from their new home."""
    warnings.warn(f"{old} moved: import from {new}", DeprecationWarning, stacklevel=3)
