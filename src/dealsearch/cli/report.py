"""``dealsearch report``: draw what a log holds (option parsing and printing only)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..commandline.options import EXIT_OK, check_log_path, command, open_log, positive_int
from ..errors import BadOption
from ..game import Game


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``report`` command."""
    report = command(
        commands, "report",
        "Write index.html and one PNG per figure into --out, from the log alone.",
        ["dealsearch report --out report",
         "dealsearch report --game durak --run 3 --run 4 --out durak-report",
         "dealsearch report --db overnight.sqlite --out overnight"],
        options=["db", "game", "target"])
    report.add_argument("--run", type=positive_int, action="append", metavar="ID",
                        help="a run to draw (repeatable; default: every run)")
    report.add_argument("--out", type=_directory, required=True, metavar="DIR",
                        help="directory for index.html and the PNGs")
    return report


def _directory(text: str) -> Path:
    """--out: a directory's name (Path("") is the current directory, which the report would
    fill with its files unasked)."""
    if not text:
        raise argparse.ArgumentTypeError("an empty argument is not a directory: give a name, "
                                         "e.g. --out report")
    return Path(text)


def run(args: argparse.Namespace) -> int:
    """``dealsearch report``."""
    check_log_path(args.db, must_exist=True)
    try:
        import matplotlib  # noqa: F401  (an optional extra: only reports need it)
    except ImportError:
        raise BadOption("dealsearch report needs matplotlib: pip install 'dealsearch[report]'"
                       ) from None
    from ..report import write_report

    log = open_log(args.db, must_exist=True)
    try:
        index = write_report(log, args.run or [], args.out, args.game, target=args.target)
    except ValueError as error:
        raise BadOption(str(error)) from None
    except OSError as error:
        raise BadOption(f"cannot write to {args.out}: {error.strerror}") from None
    print(f"wrote {index}")
    log.raise_skipped()   # a damaged log: what could be read was drawn, then one line
    return EXIT_OK
