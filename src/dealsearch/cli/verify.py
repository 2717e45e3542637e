"""``dealsearch verify``: play deals exactly and print their results (parsing and printing)."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any, TextIO

from ..commandline.options import (
    EXIT_MISMATCH,
    EXIT_OK,
    add_game_options,
    command,
    game_options,
    whole_number,
)
from ..errors import BadInput, BadOption
from ..game import Game, GameError, GameOptions, PublishedRecords, Reference, get_game
from ..text import quoted
from .deals import deal_numbering, deal_texts, not_a_deal


def add_parser(commands: Any, game: Game) -> argparse.ArgumentParser:
    """The ``verify`` command, with ``game``'s options."""
    verify = command(
        commands, "verify",
        "Play each deal and print its exact result. A deal is given as an argument, '-' "
        "reads one deal per line from standard input, and a file name reads one deal per "
        "line from that file.",
        ["dealsearch verify ---AJ--Q---------QAKQJJ-QK/-----A----KJ-K--------A---",
         "dealsearch verify --trace deals.txt",
         "dealsearch verify --rules italian --rank 90016849133615",
         "dealsearch verify --game durak --players 3 --policy aggressive -  < deals.txt"],
        options=["game"])
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
    add_game_options(verify, game, exclude=game.deal_options)
    return verify


def run(args: argparse.Namespace) -> int:
    """``dealsearch verify``: play deals and print their results."""
    game = get_game(args.game)
    options = game_options(args, game, game.deal_options)
    if args.trace and not isinstance(game, Reference):
        raise BadOption(f"--trace: {game.name} has no trace (the game offers no "
                        "turn-by-turn account)")
    if args.known:
        if not isinstance(game, PublishedRecords):
            raise BadInput(f"--known: there are no published deals of {game.name} yet")
        return _verify_known(game, args)
    if not args.deals and not args.rank:
        raise BadOption("verify needs a deal, '-' or a file of deals (or --rank N, --known)")
    together = _one_deal_apart(game, args.deals, options)
    if together is not None:
        raise BadInput(f"{len(args.deals)} arguments that are one deal's hands: give the deal as "
                       f"one argument, {quoted(together, 80)}")
    deals = None
    if args.rank or args.show_rank:
        deals = deal_numbering(game, options)
    texts = [("", game.format(_deal_of_rank(deals, n), options)) for n in args.rank or ()]
    status = EXIT_OK
    for where, text in [*texts, *deal_texts(args.deals)]:
        try:
            canonical, result = game.verify(text, options)
        except GameError as error:
            status = not_a_deal(game, where, text, error)
            continue
        rank = _rank(deals, game, text, options) if deals is not None else None
        if args.json:
            print(json.dumps({"deal": canonical, **result.to_json(game.result_keys),
                              **({} if rank is None else {"rank": rank})}), flush=True)
        else:
            print(canonical)
            print(f"  {game.describe(result)}")
            if rank is not None:
                print(f"  rank {rank}")
        if args.trace and isinstance(game, Reference):  # refused above otherwise
            # --json: stdout holds JSON lines only, so the trace goes to stderr.
            _print_trace(game, text, options, sys.stderr if args.json else sys.stdout)
    return status


def _one_deal_apart(game: Game, texts: list[str], options: GameOptions) -> str | None:
    """The deal (canonical) that several arguments make together when none is a deal alone:
    hands typed with spaces between them, unquoted, which the shell splits. None otherwise."""
    if not 2 <= len(texts) <= 8 or "-" in texts:
        return None
    for text in texts:
        try:
            game.parse(text, options)
            return None
        except GameError:
            pass
    try:
        return game.format(game.parse(" ".join(texts), options), options)
    except GameError:
        return None


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


def _print_trace(game: Reference, text: str, options: object, out: TextIO) -> None:
    for line in game.trace(text, options):
        print(line, file=out)


def _verify_known(game: PublishedRecords, args: argparse.Namespace) -> int:
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
