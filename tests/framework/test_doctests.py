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


def examples(name: str) -> list[doctest.DocTest]:
    """The module's docstrings that hold examples that run (none: the module is not a test
    case; an example marked ``+SKIP`` shows usage that needs more than a test's time)."""
    finder = doctest.DocTestFinder(exclude_empty=True)
    module = importlib.import_module(name)
    return [test for test in finder.find(module, name)
            if any(not example.options.get(doctest.SKIP) for example in test.examples)]


MODULES = modules()
WITH_EXAMPLES = [name for name in MODULES if examples(name)]


def test_the_walk_finds_the_whole_package() -> None:
    assert {"dealsearch", "dealsearch.cli.main", "dealsearch.game",
            "dealsearch.games.beggar.notation",
            "dealsearch.games.durak.game", "dealsearch.search.runner"} <= set(MODULES)
    # The public modules a newcomer reads first show an example; a module without one is
    # not collected below (a doctest case that runs nothing would pass without testing).
    assert {"dealsearch.game", "dealsearch.log.store", "dealsearch.text"} <= set(WITH_EXAMPLES)


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_doctests(name: str) -> None:
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS, verbose=False)
    report: list[str] = []
    for test in examples(name):
        runner.run(test, out=report.append)
    assert runner.tries > 0 and runner.failures == 0, "".join(report)
