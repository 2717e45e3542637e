"""``dealsearch report``: draw what a log holds (option parsing and printing only)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from .cli_options import DEFAULT_DB, EXIT_OK, BadInput, add_game_choice, positive_int


def add_report_parser(commands: Any) -> None:
    """The ``report`` subcommand."""
    report = commands.add_parser(
        "report", help="draw a log's runs: lengths, best so far, speed, records, cycles",
        description="Write index.html and one PNG per figure into --out, from the log alone.")
    report.add_argument("--db", default=DEFAULT_DB, help=f"the log (default: {DEFAULT_DB})")
    report.add_argument("--run", type=positive_int, action="append", metavar="ID",
                        help="a run to draw (repeatable; default: every run)")
    report.add_argument("--out", type=Path, required=True, metavar="DIR",
                        help="directory for index.html and the PNGs")
    add_game_choice(report)


def cmd_report(args: argparse.Namespace) -> int:
    """``dealsearch report``."""
    if not Path(args.db).exists():
        raise BadInput(f"no log at {args.db}")
    try:
        import matplotlib  # noqa: F401  (an optional extra: only reports need it)
    except ImportError:
        raise BadInput("dealsearch report needs matplotlib: pip install 'dealsearch[report]'"
                       ) from None
    from .log import LogError, RecordLog
    from .report import write_report

    try:
        log = RecordLog(args.db)
    except LogError as error:
        raise BadInput(str(error)) from None
    try:
        index = write_report(log, args.run or [], args.out, args.game)
    except ValueError as error:
        raise BadInput(str(error)) from None
    except OSError as error:
        raise BadInput(f"cannot write to {args.out}: {error.strerror}") from None
    print(f"wrote {index}")
    return EXIT_OK
