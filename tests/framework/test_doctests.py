"""The doctests of the installed package (not of ``src/``): every Python module of the
``dealsearch`` that ``import dealsearch`` finds, walked with :func:`pkgutil.walk_packages` and
run with :mod:`doctest` under pytest's default flag (``ELLIPSIS``). The compiled modules hold
no doctests (their ``.pyx`` docstrings show none)."""

from __future__ import annotations

import doctest
import importlib
import importlib.util
import pkgutil

import pytest

import dealsearch


def modules() -> list[str]:
    """Every Python module of the installed package but ``__main__`` (it runs the CLI)."""
    names = ["dealsearch"]
    names += [info.name for info in pkgutil.walk_packages(dealsearch.__path__, "dealsearch.")]
    return sorted(name for name in names if not name.endswith(".__main__")
                  and str(importlib.util.find_spec(name).origin).endswith(".py"))


MODULES = modules()


def test_the_walk_finds_the_whole_package() -> None:
    assert {"dealsearch", "dealsearch.cli.main", "dealsearch.games.beggar.notation",
            "dealsearch.games.durak.game", "dealsearch.search.runner"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_doctests(name: str) -> None:
    module = importlib.import_module(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS, verbose=False)
    report: list[str] = []
    for test in finder.find(module, name):
        runner.run(test, out=report.append)
    assert runner.failures == 0, "".join(report)
