"""``python tests/hooked_cli.py [--save-pause S] [--hold-after-finds N] [--signal-at MOMENT
--signal NUMBER] -- ARGV...``:
``dealsearch ARGV`` with a run's test hooks (:class:`dealsearch.search.hooks.TestHooks`).

The package takes the hooks one way only, :func:`dealsearch.cli.main.main`'s ``hooks``
keyword (no option, no environment variable: a user's search never holds), so a test that
needs them in a real process starts this launcher instead of ``python -m dealsearch``:
:func:`conftest.start_cli` does, when given ``hooks``.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dealsearch import interrupt

interrupt.install()   # first, as the ``dealsearch`` entry point does (dealsearch.start)

from dealsearch.cli.main import main as dealsearch  # noqa: E402
from dealsearch.search.hooks import TestHooks  # noqa: E402


def hook_args(hooks: TestHooks) -> list[str]:
    """The launcher's arguments that give ``hooks``, up to and with the ``--``.

    >>> hook_args(TestHooks(save_pause=0.1, hold_after_finds=2))
    ['--save-pause', '0.1', '--hold-after-finds', '2', '--signal-at', '', '--signal', '2', '--']
    """
    return ["--save-pause", str(hooks.save_pause),
            "--hold-after-finds", str(hooks.hold_after_finds),
            "--signal-at", hooks.signal_at, "--signal", str(int(hooks.signum)), "--"]


def main(argv: Sequence[str]) -> int:
    """Read the hooks before ``--``, then run the command line after it with them."""
    argv = list(argv)
    if "--" not in argv:
        raise SystemExit("usage: hooked_cli.py [HOOKS] -- DEALSEARCH-ARGV...")
    split = argv.index("--")
    parser = argparse.ArgumentParser(prog="hooked_cli.py")
    parser.add_argument("--save-pause", type=float, default=0.0)
    parser.add_argument("--hold-after-finds", type=int, default=0)
    parser.add_argument("--signal-at", default="")
    parser.add_argument("--signal", type=int, default=2)
    given = parser.parse_args(argv[:split])
    return dealsearch(argv[split + 1:], hooks=TestHooks(
        save_pause=given.save_pause, hold_after_finds=given.hold_after_finds,
        signal_at=given.signal_at, signum=given.signal))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
