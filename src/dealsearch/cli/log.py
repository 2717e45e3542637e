"""``dealsearch log check`` and ``dealsearch log recover``: is a log damaged, and a new log
holding all that can still be read (see :mod:`dealsearch.log.check`)."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from ..commandline.options import EXIT_OK, Parser, check_log_path, examples, shared
from ..errors import BadOption, DamagedLog
from ..game import Game
from ..log.check import read_log, refuse_foreign
from ..log.recover import recover
from ..text import counted


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``log`` command and its two actions."""
    log: argparse.ArgumentParser = commands.add_parser(
        "log",
        description="check: SQLite's integrity check and the log's own rules, one line per "
                    "problem (exit 0: sound, 1: damaged). recover: a new log holding every "
                    "run, find, cycle and histogram that can still be read, with a line for "
                    "each thing left behind; the damaged log is only read.",
        epilog=examples("dealsearch log check", "dealsearch log check --db overnight.sqlite",
                        "dealsearch log recover --db overnight.sqlite saved.sqlite"))
    # Every command takes --game (scripts pass it throughout); a log holds every game's runs.
    log.add_argument("--game", help=argparse.SUPPRESS)
    actions = log.add_subparsers(dest="action", required=True, metavar="ACTION",
                                 parser_class=Parser)
    actions.add_parser("check", parents=[shared("db")],
                       help="is the log sound? one line per problem",
                       description="SQLite's integrity check, then every row of every table "
                                   "held to the log's rules: one line per problem, then a "
                                   "summary. Exit 0: sound; 1: damaged.",
                       epilog=examples("dealsearch log check --db overnight.sqlite"))
    save = actions.add_parser("recover", parents=[shared("db")],
                              help="a new log holding all that can still be read",
                              description="Write a new log, OUT, holding every run, find, "
                                          "cycle, histogram and sample of the log that can "
                                          "still be read, and print a line for each thing "
                                          "left behind. The log itself is only read. Exit 0: "
                                          "all was kept; 1: something was left behind.",
                              epilog=examples("dealsearch log recover --db overnight.sqlite "
                                              "saved.sqlite"))
    save.add_argument("out", metavar="OUT", help="the new log (must not exist yet)")
    return log


def run(args: argparse.Namespace) -> int:
    """``dealsearch log check`` or ``dealsearch log recover``."""
    check_log_path(args.db, must_exist=True)
    refuse_foreign(args.db)   # another application's database: left alone, as everywhere
    if args.action == "check":
        return _check(args.db)
    return _recover(args.db, args.out)


def _check(db: str) -> int:
    reading = read_log(db)
    problems = reading.row_problems
    for problem in problems:
        print(f"{db}: {problem}")
    if problems:   # the lines above, then one line on stderr (exit 1)
        raise DamagedLog(f"{db} is damaged: {counted(len(problems), 'problems')} in "
                         f"{reading.summary()}; save the rest with: dealsearch log recover "
                         f"--db {db} NEW.sqlite")
    print(f"{db} is sound: {reading.summary()}")
    return EXIT_OK


def _recover(db: str, out: str) -> int:
    try:
        exists = bool(out) and (Path(out).exists() or Path(f"{out}-wal").exists())
    except OSError:   # a name too long for a file: check_log_path says so in one line
        exists = False
    if exists:
        raise BadOption(f"{out} exists: recover writes a new log")
    check_log_path(out)   # an empty name, a name too long, no such directory: one line
    recovery = recover(db, out)
    for line in recovery.left:
        print(f"{db}: {line}")
    kept = ", ".join(counted(n, table) for table, n in recovery.kept.items())
    how = " (with the sqlite3 tool's .recover)" if recovery.used_sqlite else ""
    print(f"recovered {kept} into {out}{how}")
    if recovery.left:   # the lines above, then one line on stderr (exit 1)
        raise DamagedLog(f"{counted(len(recovery.left), 'things')} of {db} could not be "
                         f"recovered (listed above); {out} holds the rest")
    return EXIT_OK

