"""What the tests share: the layout mirrors the package (``framework/`` for the framework,
``games/<game>/`` for each game, ``docs/`` for the documentation), shared deals live in
``deals.py``, and long tests are marked ``slow`` (``pytest -m "not slow"`` skips them on a
developer's machine; CI runs them all).

The real command line runs through :func:`run_cli` (to its end, output captured) and
:func:`start_cli` (a running process in its own session, as a shell starts a job): the
installed package's ``python -m dealsearch``, as a user runs it (CI installs the wheel); given
a run's test hooks (:class:`dealsearch.search.hooks.TestHooks`: pause before a commit, hold
after a find), :func:`start_cli` runs the same command line through ``hooked_cli.py``, which
hands them to it.
:func:`search_json` runs a search in the test's own process and reads its JSON lines.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

import pytest

from dealsearch.cli import main
from dealsearch.search.hooks import TestHooks

from deals import CASELLA, RECORD
from hooked_cli import hook_args

CLI = (sys.executable, "-m", "dealsearch")
HOOKED_CLI = (sys.executable, str(Path(__file__).with_name("hooked_cli.py")))


def run_cli(*argv: str, timeout: float = 300, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    """``dealsearch ARGV`` to its end: exit status, stdout and stderr as text."""
    return subprocess.run([*CLI, *argv], capture_output=True, text=True, timeout=timeout,
                          **kwargs)


def search_json(capsys: pytest.CaptureFixture[str], *argv: str
                ) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """``dealsearch search ARGV --json --quiet`` in this process: (finds, summary)."""
    assert main(["search", *argv, "--json", "--quiet"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    return lines[:-1], lines[-1]


def ctrl_c_after_first_find() -> Callable[[Any], None]:
    """An ``on_find`` for a :class:`~dealsearch.search.runner.Runner` that presses Ctrl-C once,
    right after the first committed find is told."""
    pressed: list[Any] = []

    def ctrl_c(find: Any) -> None:
        if not pressed:
            pressed.append(find)
            raise KeyboardInterrupt

    return ctrl_c


def start_cli(*argv: str, hooks: TestHooks | None = None, env: Mapping[str, str] | None = None,
              stdout: Any = subprocess.PIPE, stderr: Any = subprocess.PIPE
              ) -> subprocess.Popen[str]:
    """``dealsearch ARGV`` started in its own session (signals reach it alone), text pipes;
    with ``hooks``, its run pauses or holds where they say (``hooked_cli.py``)."""
    command = [*CLI, *argv] if hooks is None else [*HOOKED_CLI, *hook_args(hooks), *argv]
    return subprocess.Popen(command, stdout=stdout, stderr=stderr, text=True,
                            env=None if env is None else dict(env), start_new_session=True)


@pytest.fixture
def record() -> str:
    """The longest known finished game (8,344 cards)."""
    return RECORD


@pytest.fixture
def casella() -> str:
    """Casella's never-ending deal (a 62-trick cycle)."""
    return CASELLA
