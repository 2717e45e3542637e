"""``dealsearch verify``: play deals exactly and print their results (parsing and printing)."""

from __future__ import annotations

import argparse
import errno
import json
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from typing import Any, TextIO

from .. import __name__ as package_name
from ..errors import BadInput, BadOption, NoSuchFile, NotAFile, NotATextFile
from ..game import (
    Game,
    GameError,
    PublishedDeals,
    Trace,
    deal_options,
    get_game,
    looks_like_deal,
)
from ..text import QUOTE_LIMIT, count, one_line, quoted
from .options import (
    EXIT_BAD_INPUT,
    EXIT_MISMATCH,
    EXIT_OK,
    add_game_options,
    examples,
    game_options,
    option_values,
    shared,
    whole_number,
)

MAX_DEAL_FILE = 64 * 2**20   # bytes of a file of deals: hundreds of thousands of deals
MAX_LINE = 64 * 2**10        # characters of a line of standard input


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``verify`` command, with ``game``'s options."""
    verify: argparse.ArgumentParser = commands.add_parser(
        "verify", parents=[shared("game")],
        description="Play each deal and print its exact result. A deal is given as an "
                    "argument, '-' reads one deal per line from standard input, and a file "
                    "name reads one deal per line from that file.",
        epilog=examples(
            "dealsearch verify ---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---",
            "dealsearch verify --trace deals.txt",
            "dealsearch verify --rules italian --rank 90016849133615",
            "dealsearch verify --game durak --players 3 --policy aggressive -  < deals.txt"))
    verify.add_argument("deals", nargs="*", metavar="DEAL",
                        help="a deal in any notation, '-' or a file of deals")
    verify.add_argument("--json", action="store_true",
                        help="one JSON object per deal per line")
    verify.add_argument("--trace", action="store_true", help="print the game turn by turn")
    verify.add_argument("--known", action="store_true",
                        help="replay every published deal (games with published deals) and compare")
    verify.add_argument("--rank", type=whole_number, action="append", metavar="N",
                        help="play the deal of rank N of the layout's space (as search "
                             "exhaustive --ranks numbers it; the game's options make the "
                             "layout); may be given again")
    verify.add_argument("--show-rank", action="store_true",
                        help="also print each deal's rank (see dealsearch rank)")
    add_game_options(verify, game, exclude=deal_options(game))
    return verify


def _is_path(source: str) -> bool:
    """Whether ``source`` names something on disk."""
    try:
        os.stat(source)
    except (OSError, ValueError):
        return False
    return True


def _could_name_a_file(text: str) -> bool:
    """Whether ``text`` could be a file's name: not too long for one (a text too long to be a
    file name is a deal), and holding no NUL."""
    try:
        os.stat(text)
    except OSError as error:
        return error.errno != errno.ENAMETOOLONG
    except ValueError:
        return False
    return True


def _read_deal_file(source: str) -> list[str]:
    """The lines of a file of deals: a regular file of at most :data:`MAX_DEAL_FILE` bytes
    (never a device such as /dev/zero, read without end)."""
    try:
        with open(source, "rb") as file:
            kind = os.fstat(file.fileno())
            if stat.S_ISDIR(kind.st_mode):
                raise NotAFile(f"{source} is a directory, not a file of deals")
            if not stat.S_ISREG(kind.st_mode):
                raise NotAFile(f"{source} is not a regular file of deals")
            data = file.read(MAX_DEAL_FILE + 1)
    except IsADirectoryError:
        raise NotAFile(f"{source} is a directory, not a file of deals") from None
    except OSError as error:
        raise NoSuchFile(f"cannot read {source}: {error.strerror}") from None
    if len(data) > MAX_DEAL_FILE:
        raise NotATextFile(f"{source} is over {MAX_DEAL_FILE // 2**20} MiB: split it, or "
                           "give it on standard input (verify -)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        text = "\0"
    if "\0" in text:  # NUL is valid UTF-8 but never in text
        raise NotATextFile(f"{source} is not a text file (not UTF-8 text)")
    return text.splitlines()


def _stdin_lines() -> Iterator[str]:
    """Standard input's lines, each at most :data:`MAX_LINE` characters (a deal is far
    shorter; /dev/zero is one endless line)."""
    try:
        for number, line in enumerate(iter(lambda: sys.stdin.readline(MAX_LINE + 1), ""), 1):
            if len(line) > MAX_LINE:
                raise NotATextFile(f"stdin, line {number}: over {count(MAX_LINE)} characters, "
                                   "not a deal")
            yield line
    except UnicodeDecodeError:
        raise NotATextFile("standard input is not text (not UTF-8 text)") from None


def deal_texts(sources: Sequence[str]) -> Iterator[tuple[str, str]]:
    """(where, text) of every deal given: arguments, '-' (stdin) or files, one deal a line."""
    for source in sources:
        if not source.strip():   # Path('') is the current directory: not what was meant
            raise BadInput("an empty argument is not a deal: give a deal, '-' or a file of "
                           "deals")
        if source == "-":
            lines: Iterator[tuple[int, str]] = enumerate(_stdin_lines(), 1)
            name = "stdin"
        elif _is_path(source):
            lines = enumerate(_read_deal_file(source), 1)
            name = source
        else:
            yield "", source
            continue
        for number, line in lines:
            line = line.split("#", 1)[0].strip()
            if line:
                yield f"{name}, line {number}: ", line


def run(args: argparse.Namespace) -> int:
    """``dealsearch verify``: play deals and print their results."""
    game = get_game(args.game)
    options = game_options(game, option_values(args, game, deal_options(game)))
    if args.trace and not isinstance(game, Trace):
        raise BadOption(f"--trace: {game.name} has no trace (the game offers no "
                        "turn-by-turn account)")
    if args.known:
        if not isinstance(game, PublishedDeals):
            raise BadInput(f"--known: there are no published deals of {game.name} yet")
        return _verify_known(game, args)
    if not args.deals and not args.rank:
        raise BadOption("verify needs a deal, '-' or a file of deals (or --rank N, --known)")
    deals = None
    if args.rank or args.show_rank:
        from .rank import deal_numbering  # rank imports this module

        deals = deal_numbering(game, options)
    texts = [("", game.format(_deal_of_rank(deals, n), options)) for n in args.rank or ()]
    status = EXIT_OK
    for where, text in [*texts, *deal_texts(args.deals)]:
        try:
            canonical, result = game.verify(text, options)
        except GameError as error:
            if not where and not looks_like_deal(game, text) and _could_name_a_file(text):
                # a misspelt file name
                named = text if len(text) <= QUOTE_LIMIT else quoted(text)
                raise NoSuchFile(f"no such file: {named}") from None
            print(f"{package_name}: error: {where}{one_line(error)}", file=sys.stderr)
            status = EXIT_BAD_INPUT
            continue
        rank = _rank(deals, game, text, options) if deals is not None else None
        if args.json:
            print(json.dumps({"deal": canonical, **result.to_json(),
                              **({} if rank is None else {"rank": rank})}), flush=True)
        else:
            print(canonical)
            print(f"  {game.describe(result)}")
            if rank is not None:
                print(f"  rank {rank}")
        if args.trace and isinstance(game, Trace):  # refused above otherwise
            # --json: stdout holds JSON lines only, so the trace goes to stderr.
            _print_trace(game, text, options, sys.stderr if args.json else sys.stdout)
    return status


def _deal_of_rank(deals: Any, number: int) -> Any:
    if number >= deals.total:
        raise BadOption(f"--rank {number}: this layout has {deals.total:,} deals, ranks 0 to "
                        f"{deals.total - 1}")
    return deals.row(number)


def _rank(deals: Any, game: Game, text: str, options: Any) -> int | str:
    """The deal's rank, or why it has none under these options (another layout)."""
    try:
        return int(deals.number(game.parse(text, options)))
    except (GameError, ValueError) as error:
        return f"none ({error})"


def _print_trace(game: Trace, text: str, options: object, out: TextIO) -> None:
    for line in game.trace(text, options):
        print(line, file=out)


def _verify_known(game: PublishedDeals, args: argparse.Namespace) -> int:
    checks = game.check_published()
    mismatches = sum(not check.ok for check in checks)
    if args.json:
        for check in checks:
            print(json.dumps({"deal": check.deal, "finder": check.finder, "year": check.year,
                              "published": check.published, **check.result, "ok": check.ok}))
    else:
        print(f"{'finder':<30} {'year':>4}  {'published':<22} {'computed':<22} ok")
        for check in checks:
            flag = "ok" if check.ok else "MISMATCH"
            print(f"{check.finder[:30]:<30} {check.year:>4}  {check.published:<22} "
                  f"{check.computed:<22} {flag}")
        print(f"{len(checks)} published deals, {mismatches} mismatches")
    return EXIT_MISMATCH if mismatches else EXIT_OK
